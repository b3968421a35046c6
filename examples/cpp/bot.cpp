// A complete Arbiter bot in one C++17 file, for `arbiter bridge stdio` (docs/STDIO.md).
// It plays every game: m,n,k (tic-tac-toe, gomoku), renju and caro, vanishing tic-tac-toe and 3-D tic-tac-toe
// by "win, else block, else next to the stones near the centre"; paper soccer by walking the ball
// step by step towards the goal it attacks, bouncing on while that helps, never into its own goal
// and never where it would be stuck. No library: a small JSON reader is below.
//
//   g++ -O2 -std=c++17 -o bot bot.cpp
//   arbiter bridge stdio --server ws://HOST:PORT/ --token-file bot.token -- ./bot
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// --- JSON, just enough to read a turn line ---------------------------------------------------
struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    double number = 0;
    bool boolean = false;
    std::string text;
    std::vector<Json> items;
    std::map<std::string, Json> fields;

    const Json& operator[](const std::string& key) const {
        static const Json none;
        auto found = fields.find(key);
        return found == fields.end() ? none : found->second;
    }
    long integer() const { return static_cast<long>(std::llround(number)); }
};

class Reader {
   public:
    explicit Reader(const std::string& text) : s(text) {}
    Json value() {
        space();
        if (i >= s.size()) throw std::runtime_error("unexpected end of JSON");
        char c = s[i];
        Json v;
        if (c == '{') {
            v.kind = Json::Object;
            ++i;
            space();
            if (peek() == '}') { ++i; return v; }
            for (;;) {
                space();
                std::string key = string();
                space();
                expect(':');
                v.fields[key] = value();
                space();
                if (peek() == ',') { ++i; continue; }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = Json::Array;
            ++i;
            space();
            if (peek() == ']') { ++i; return v; }
            for (;;) {
                v.items.push_back(value());
                space();
                if (peek() == ',') { ++i; continue; }
                expect(']');
                return v;
            }
        }
        if (c == '"') { v.kind = Json::String; v.text = string(); return v; }
        if (s.compare(i, 4, "true") == 0) { i += 4; v.kind = Json::Bool; v.boolean = true; return v; }
        if (s.compare(i, 5, "false") == 0) { i += 5; v.kind = Json::Bool; return v; }
        if (s.compare(i, 4, "null") == 0) { i += 4; return v; }
        size_t used = 0;
        v.number = std::stod(s.substr(i), &used);
        v.kind = Json::Number;
        i += used;
        return v;
    }

   private:
    const std::string& s;
    size_t i = 0;
    char peek() const { return i < s.size() ? s[i] : '\0'; }
    void space() { while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i; }
    void expect(char c) {
        if (peek() != c) throw std::runtime_error(std::string("expected ") + c);
        ++i;
    }
    std::string string() {
        expect('"');
        std::string out;
        while (i < s.size() && s[i] != '"') {
            char c = s[i++];
            if (c == '\\' && i < s.size()) {
                char e = s[i++];
                if (e == 'n') out += '\n';
                else if (e == 't') out += '\t';
                else if (e == 'u') { out += '?'; i += 4; }  // names and diagrams only: no need to decode
                else out += e;
            } else {
                out += c;
            }
        }
        expect('"');
        return out;
    }
};

// --- cell games: m,n,k, vanishing, 3-D ---------------------------------------------------------
using Cell = std::vector<long>;

struct Cells {
    std::vector<long> size;  // per dimension
    long k = 3;
    bool exact = false;
    bool vanishing = false;
    std::map<Cell, int> stones;  // cell → colour

    // The longest line of `colour` through `cell` if it stood there (the board as it is otherwise).
    long run(const Cell& cell, int colour) const {
        long best = 1;
        size_t d = size.size();
        long total = 1;
        for (size_t i = 0; i < d; ++i) total *= 3;
        for (long code = total / 2 + 1; code < total; ++code) {  // half of the directions: one of each ± pair
            Cell step(d);
            long rest = code;
            for (size_t i = 0; i < d; ++i) { step[i] = rest % 3 - 1; rest /= 3; }
            long count = 1;
            for (int sign : {1, -1}) {
                Cell at = cell;
                for (;;) {
                    for (size_t i = 0; i < d; ++i) at[i] += sign * step[i];
                    bool inside = true;
                    for (size_t i = 0; i < d; ++i) inside = inside && at[i] >= 0 && at[i] < size[i];
                    auto found = stones.find(at);
                    if (!inside || found == stones.end() || found->second != colour) break;
                    ++count;
                }
            }
            best = std::max(best, count);
        }
        return best;
    }
    bool wins(const Cell& cell, int colour) const {
        long r = run(cell, colour);
        return exact ? r == k : r >= k;
    }
};

std::string encode(const std::vector<long>& move) {
    std::string out = "[";
    for (size_t i = 0; i < move.size(); ++i) out += (i ? "," : "") + std::to_string(move[i]);
    return out + "]";
}

std::vector<long> cells_move(const Json& turn) {
    const Json& params = turn["params"];
    std::string family = turn["family"].text;
    Cells game;
    if (family == "ttt3d") {
        long n = params["n"].integer();
        game.size = {n, n, n};
        game.k = n;
    } else if (family == "vanishing") {
        game.size = {3, 3};
        game.vanishing = true;
    } else {  // m,n,k and its presets; renju and caro (family "five": five in a row, the legal list
              // leaving out black's forbidden points; a blocked caro five is taken for a win here)
        game.size = {params["m"].integer(), params["n"].integer()};
        game.k = family == "five" ? 5 : params["k"].integer();
        game.exact = params["exact"].boolean;
    }
    const auto& moves = turn["moves"].items;
    for (size_t ply = 0; ply < moves.size(); ++ply) {
        Cell cell;
        for (const auto& c : moves[ply].items) cell.push_back(c.integer());
        game.stones[cell] = static_cast<int>(ply % 2);
        if (game.vanishing && ply >= 6) {  // the stone placed six plies before vanishes
            Cell old;
            for (const auto& c : moves[ply - 6].items) old.push_back(c.integer());
            game.stones.erase(old);
        }
    }
    int me = static_cast<int>(turn["color"].integer());
    size_t ply = moves.size();
    auto without_oldest = [&](int colour, size_t at) {  // vanishing: the stone that goes when `colour` plays at ply `at`
        Cells copy = game;
        if (game.vanishing && at >= 6) {
            Cell old;
            for (const auto& c : moves[at - 6].items) old.push_back(c.integer());
            if (copy.stones.count(old) && copy.stones[old] == colour) copy.stones.erase(old);
        }
        return copy;
    };
    Cells mine = without_oldest(me, ply), theirs = without_oldest(1 - me, ply + 1);
    std::vector<long> best;
    double best_score = -1e18;
    for (const auto& option : turn["legal"].items) {
        Cell cell;
        for (const auto& c : option.items) cell.push_back(c.integer());
        double score = 0;
        if (mine.wins(cell, me)) score = 1e9;
        else if (theirs.wins(cell, 1 - me)) score = 1e8;
        else {
            score = 10.0 * (mine.run(cell, me) + theirs.run(cell, 1 - me));
            for (size_t i = 0; i < cell.size(); ++i) score -= std::fabs(cell[i] - (game.size[i] - 1) / 2.0);
        }
        if (score > best_score) { best_score = score; best = cell; }
    }
    return best;
}

// --- paper soccer -------------------------------------------------------------------------------
const int DX[8] = {0, 1, 1, 1, 0, -1, -1, -1};
const int DY[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

struct Field {
    int w, l, c;
    std::vector<int> closed;  // per grid point, y from -1 to l+1: bit d set = step d not available
    int ball;                 // point index
    bool over = false;

    Field(int width, int length) : w(width), l(length), c(width / 2), closed((width + 1) * (length + 3), 0xFF) {
        for (int y = -1; y <= l + 1; ++y)
            for (int x = 0; x <= w; ++x) {
                bool goal = (y == -1 || y == l + 1) && x >= c - 1 && x <= c + 1;
                if (!goal && !on_field(x, y)) continue;
                int mask = 0;
                for (int d = 0; d < 8; ++d) {
                    int tx = x + DX[d], ty = y + DY[d];
                    bool drawn = predrawn(x, y, tx, ty);
                    if (drawn || (!goal && !stays_in(x, y, tx, ty))) mask |= 1 << d;
                }
                closed[index(x, y)] = mask;
            }
        ball = index(c, l / 2);
    }
    int index(int x, int y) const { return (y + 1) * (w + 1) + x; }
    int x_of(int i) const { return i % (w + 1); }
    int y_of(int i) const { return i / (w + 1) - 1; }
    bool on_field(int x, int y) const { return x >= 0 && x <= w && y >= 0 && y <= l; }
    bool is_goal(int x, int y) const { return (y == -1 || y == l + 1) && x >= c - 1 && x <= c + 1; }
    // The border but the goal mouths, and the goals' side walls (post to the goal point behind it).
    bool predrawn(int x1, int y1, int x2, int y2) const {
        if (x1 > x2 || (x1 == x2 && y1 > y2)) { std::swap(x1, x2); std::swap(y1, y2); }
        if (x1 == x2 && y2 == y1 + 1) {
            if ((x1 == 0 || x1 == w) && y1 >= 0 && y2 <= l) return true;
            if ((x1 == c - 1 || x1 == c + 1) && (y1 == -1 || y1 == l)) return true;
        }
        if (y1 == y2 && x2 == x1 + 1 && (y1 == 0 || y1 == l) && x1 >= 0 && x2 <= w) return x1 != c - 1 && x1 != c;
        return false;
    }
    // A step stays on the field, or enters a goal between its posts (from the goal line's three middle points).
    bool stays_in(int x, int y, int tx, int ty) const {
        if (on_field(tx, ty)) return true;
        if (!is_goal(tx, ty)) return false;
        int line = ty < 0 ? 0 : l;
        return y == line && x >= c - 1 && x <= c + 1;
    }
    // Kick one legal step: true when the turn goes on (a bounce, the game not over).
    bool step(int d) {
        int target = ball + DY[d] * (w + 1) + DX[d];
        bool bounce = closed[target] != 0;
        closed[ball] |= 1 << d;
        closed[target] |= 1 << ((d + 4) & 7);
        ball = target;
        int y = y_of(target);
        if (y < 0 || y > l || closed[target] == 0xFF) { over = true; return false; }
        return bounce;
    }
    bool legal(int d) const { return !over && !((closed[ball] >> d) & 1); }
};

std::vector<long> soccer_move(const Json& turn) {
    const Json& params = turn["params"];
    Field field(static_cast<int>(params["width"].integer()), static_cast<int>(params["length"].integer()));
    for (const auto& move : turn["moves"].items)
        for (const auto& step : move.items) field.step(static_cast<int>(step.integer()));
    int me = static_cast<int>(turn["color"].integer());
    int attack_y = me == 0 ? -1 : field.l + 1, defend_y = me == 0 ? field.l + 1 : -1;
    std::vector<long> turn_steps;
    for (;;) {
        int best = -1;
        double best_score = -1e18;
        for (int d = 0; d < 8; ++d) {
            if (!field.legal(d)) continue;
            Field trial = field;
            bool again = trial.step(d);
            int x = trial.x_of(trial.ball), y = trial.y_of(trial.ball);
            double score = -10.0 * std::abs(y - attack_y) - 0.5 * std::abs(x - field.c);
            if (y == attack_y) score = 1e9;
            else if (y == defend_y) score = -1e9;
            else if (trial.over) score = -1e8;  // stuck: the mover loses (or draws)
            else if (!again && std::abs(y - defend_y) <= 2) score -= 100;  // leaving the ball at our goal
            else if (again) score += 3;  // a bounce: another step to come
            if (score > best_score) { best_score = score; best = d; }
        }
        if (best < 0) break;  // stuck on a bounce: the turn (and the game) ends here
        turn_steps.push_back(best);
        if (!field.step(best)) break;
    }
    return turn_steps;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::cout << R"({"stdio": 1, "name": "cpp-starter", "process": "match"})" << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {
        Json message = Reader(line).value();
        if (message["type"].text != "turn") continue;  // "end": nothing kept between matches
        std::vector<long> move =
            message["family"].text == "paper_soccer" ? soccer_move(message) : cells_move(message);
        std::cout << "{\"move\": " << encode(move) << "}" << std::endl;
    }
}
