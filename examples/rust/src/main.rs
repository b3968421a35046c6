//! A complete Arbiter bot in Rust with the standard library only, for `arbiter bridge stdio`
//! (docs/STDIO.md). It plays every game: m,n,k (tic-tac-toe, gomoku), renju and caro, vanishing
//! tic-tac-toe and 3-D tic-tac-toe by "win, else block, else next to the stones near the centre"; paper soccer by
//! walking the ball step by step towards the goal it attacks, bouncing on while that helps, never
//! into its own goal and never where it would be stuck. A small JSON reader is below.
//!
//!     cargo build --release --offline
//!     arbiter bridge stdio --server ws://HOST:PORT/ --token-file bot.token -- target/release/arbiter-starter
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

// --- JSON, just enough to read a turn line ----------------------------------------------------
#[derive(Debug, Clone, Default)]
enum Json {
    #[default]
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

static NULL: Json = Json::Null;

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => fields.get(key).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    fn int(&self) -> i64 {
        match self {
            Json::Number(n) => n.round() as i64,
            _ => 0,
        }
    }
    fn truth(&self) -> bool {
        matches!(self, Json::Bool(true))
    }
    fn text(&self) -> &str {
        match self {
            Json::Text(t) => t,
            _ => "",
        }
    }
    fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
    fn ints(&self) -> Vec<i64> {
        self.items().iter().map(Json::int).collect()
    }
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn parse(text: &str) -> Result<Json, String> {
        Reader { s: text.as_bytes(), i: 0 }.value()
    }
    fn space(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&self) -> u8 {
        *self.s.get(self.i).unwrap_or(&0)
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() != c {
            return Err(format!("expected {} at {}", c as char, self.i));
        }
        self.i += 1;
        Ok(())
    }
    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.peek() {
            b'{' => {
                self.i += 1;
                let mut fields = BTreeMap::new();
                self.space();
                if self.peek() == b'}' {
                    self.i += 1;
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.space();
                    self.expect(b':')?;
                    fields.insert(key, self.value()?);
                    self.space();
                    if self.peek() == b',' {
                        self.i += 1;
                        continue;
                    }
                    self.expect(b'}')?;
                    return Ok(Json::Object(fields));
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == b']' {
                    self.i += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.space();
                    if self.peek() == b',' {
                        self.i += 1;
                        continue;
                    }
                    self.expect(b']')?;
                    return Ok(Json::Array(items));
                }
            }
            b'"' => Ok(Json::Text(self.string()?)),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
                text.parse().map(Json::Number).map_err(|_| format!("bad number {text:?}"))
            }
        }
    }
    fn word(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if !self.s[self.i..].starts_with(word.as_bytes()) {
            return Err(format!("expected {word}"));
        }
        self.i += word.len();
        Ok(value)
    }
    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        while self.i < self.s.len() && self.s[self.i] != b'"' {
            let c = self.s[self.i];
            self.i += 1;
            if c == b'\\' && self.i < self.s.len() {
                let e = self.s[self.i];
                self.i += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'u' => {
                        out.push(b'?'); // names and diagrams only: no need to decode
                        self.i += 4;
                    }
                    other => out.push(other),
                }
            } else {
                out.push(c);
            }
        }
        self.expect(b'"')?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

// --- cell games: m,n,k, vanishing, 3-D ---------------------------------------------------------
#[derive(Clone)]
struct Cells {
    size: Vec<i64>,
    k: i64,
    exact: bool,
    stones: BTreeMap<Vec<i64>, i64>, // cell → colour
}

impl Cells {
    /// The longest line of `colour` through `cell` if it stood there.
    fn run(&self, cell: &[i64], colour: i64) -> i64 {
        let d = self.size.len();
        let total = 3_i64.pow(d as u32);
        let mut best = 1;
        for code in total / 2 + 1..total {
            // half of the directions: one of each ± pair
            let mut rest = code;
            let step: Vec<i64> = (0..d)
                .map(|_| {
                    let s = rest % 3 - 1;
                    rest /= 3;
                    s
                })
                .collect();
            let mut count = 1;
            for sign in [1, -1] {
                let mut at = cell.to_vec();
                loop {
                    for i in 0..d {
                        at[i] += sign * step[i];
                    }
                    let inside = (0..d).all(|i| at[i] >= 0 && at[i] < self.size[i]);
                    if !inside || self.stones.get(&at) != Some(&colour) {
                        break;
                    }
                    count += 1;
                }
            }
            best = best.max(count);
        }
        best
    }
    fn wins(&self, cell: &[i64], colour: i64) -> bool {
        let r = self.run(cell, colour);
        if self.exact { r == self.k } else { r >= self.k }
    }
}

fn cells_move(turn: &Json) -> Vec<i64> {
    let params = turn.get("params");
    let family = turn.get("family").text();
    let vanishing = family == "vanishing";
    let (size, k, exact) = match family {
        "ttt3d" => {
            let n = params.get("n").int();
            (vec![n, n, n], n, false)
        }
        "vanishing" => (vec![3, 3], 3, false),
        // Renju and caro: five in a row, the legal list leaving out black's forbidden points (a
        // blocked caro five is taken for a win here).
        "five" => (vec![params.get("m").int(), params.get("n").int()], 5, params.get("exact").truth()),
        _ => (vec![params.get("m").int(), params.get("n").int()], params.get("k").int(), params.get("exact").truth()),
    };
    let mut game = Cells { size, k, exact, stones: BTreeMap::new() };
    let moves = turn.get("moves").items();
    for (ply, cell) in moves.iter().enumerate() {
        game.stones.insert(cell.ints(), (ply % 2) as i64);
        if vanishing && ply >= 6 {
            game.stones.remove(&moves[ply - 6].ints()); // the stone placed six plies before vanishes
        }
    }
    let me = turn.get("color").int();
    let ply = moves.len();
    // Vanishing: the board as it is when `colour` places at ply `at` (its oldest stone gone).
    let without_oldest = |colour: i64, at: usize| {
        let mut copy = game.clone();
        if vanishing && at >= 6 {
            let old = moves[at - 6].ints();
            if copy.stones.get(&old) == Some(&colour) {
                copy.stones.remove(&old);
            }
        }
        copy
    };
    let (mine, theirs) = (without_oldest(me, ply), without_oldest(1 - me, ply + 1));
    let mut best = Vec::new();
    let mut best_score = f64::NEG_INFINITY;
    for option in turn.get("legal").items() {
        let cell = option.ints();
        let score = if mine.wins(&cell, me) {
            1e9
        } else if theirs.wins(&cell, 1 - me) {
            1e8
        } else {
            let centre: f64 = cell.iter().zip(&game.size).map(|(&c, &s)| (c as f64 - (s - 1) as f64 / 2.0).abs()).sum();
            10.0 * (mine.run(&cell, me) + theirs.run(&cell, 1 - me)) as f64 - centre
        };
        if score > best_score {
            best_score = score;
            best = cell;
        }
    }
    best
}

// --- paper soccer -------------------------------------------------------------------------------
const DX: [i64; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
const DY: [i64; 8] = [-1, -1, 0, 1, 1, 1, 0, -1];

#[derive(Clone)]
struct Field {
    w: i64,
    l: i64,
    c: i64,
    closed: Vec<u8>, // per grid point, y from -1 to l+1: bit d set = step d not available
    ball: i64,       // point index
    over: bool,
}

impl Field {
    fn new(w: i64, l: i64) -> Field {
        let mut field = Field { w, l, c: w / 2, closed: vec![0xFF; ((w + 1) * (l + 3)) as usize], ball: 0, over: false };
        for y in -1..=l + 1 {
            for x in 0..=w {
                let goal = field.is_goal(x, y);
                if !goal && !field.on_field(x, y) {
                    continue;
                }
                let mut mask = 0u8;
                for d in 0..8 {
                    let (tx, ty) = (x + DX[d], y + DY[d]);
                    if field.predrawn(x, y, tx, ty) || (!goal && !field.stays_in(x, y, tx, ty)) {
                        mask |= 1 << d;
                    }
                }
                let i = field.index(x, y);
                field.closed[i] = mask;
            }
        }
        field.ball = field.index(field.c, l / 2) as i64;
        field
    }
    fn index(&self, x: i64, y: i64) -> usize {
        ((y + 1) * (self.w + 1) + x) as usize
    }
    fn xy(&self) -> (i64, i64) {
        (self.ball % (self.w + 1), self.ball / (self.w + 1) - 1)
    }
    fn on_field(&self, x: i64, y: i64) -> bool {
        (0..=self.w).contains(&x) && (0..=self.l).contains(&y)
    }
    fn is_goal(&self, x: i64, y: i64) -> bool {
        (y == -1 || y == self.l + 1) && (self.c - 1..=self.c + 1).contains(&x)
    }
    /// The border but the goal mouths, and the goals' side walls (post to the goal point behind it).
    fn predrawn(&self, mut x1: i64, mut y1: i64, mut x2: i64, mut y2: i64) -> bool {
        if x1 > x2 || (x1 == x2 && y1 > y2) {
            (x1, y1, x2, y2) = (x2, y2, x1, y1);
        }
        let (w, l, c) = (self.w, self.l, self.c);
        if x1 == x2 && y2 == y1 + 1 {
            if (x1 == 0 || x1 == w) && y1 >= 0 && y2 <= l {
                return true;
            }
            if (x1 == c - 1 || x1 == c + 1) && (y1 == -1 || y1 == l) {
                return true;
            }
        }
        y1 == y2 && x2 == x1 + 1 && (y1 == 0 || y1 == l) && x1 >= 0 && x2 <= w && x1 != c - 1 && x1 != c
    }
    /// A step stays on the field, or enters a goal between its posts (from the goal line's three middle points).
    fn stays_in(&self, x: i64, y: i64, tx: i64, ty: i64) -> bool {
        if self.on_field(tx, ty) {
            return true;
        }
        let line = if ty < 0 { 0 } else { self.l };
        self.is_goal(tx, ty) && y == line && (self.c - 1..=self.c + 1).contains(&x)
    }
    fn legal(&self, d: usize) -> bool {
        !self.over && (self.closed[self.ball as usize] >> d) & 1 == 0
    }
    /// Kick one legal step: true when the turn goes on (a bounce, the game not over).
    fn step(&mut self, d: usize) -> bool {
        let target = self.ball + DY[d] * (self.w + 1) + DX[d];
        let bounce = self.closed[target as usize] != 0;
        self.closed[self.ball as usize] |= 1 << d;
        self.closed[target as usize] |= 1 << ((d + 4) & 7);
        self.ball = target;
        let (_, y) = self.xy();
        if y < 0 || y > self.l || self.closed[target as usize] == 0xFF {
            self.over = true;
            return false;
        }
        bounce
    }
}

fn soccer_move(turn: &Json) -> Vec<i64> {
    let params = turn.get("params");
    let mut field = Field::new(params.get("width").int(), params.get("length").int());
    for mv in turn.get("moves").items() {
        for step in mv.ints() {
            field.step(step as usize);
        }
    }
    let me = turn.get("color").int();
    let (attack_y, defend_y) = if me == 0 { (-1, field.l + 1) } else { (field.l + 1, -1) };
    let mut steps = Vec::new();
    loop {
        let mut best = None;
        let mut best_score = f64::NEG_INFINITY;
        for d in (0..8).filter(|&d| field.legal(d)) {
            let mut trial = field.clone();
            let again = trial.step(d);
            let (x, y) = trial.xy();
            let mut score = -10.0 * (y - attack_y).abs() as f64 - 0.5 * (x - field.c).abs() as f64;
            if y == attack_y {
                score = 1e9;
            } else if y == defend_y {
                score = -1e9;
            } else if trial.over {
                score = -1e8; // stuck: the mover loses (or draws)
            } else if !again && (y - defend_y).abs() <= 2 {
                score -= 100.0; // leaving the ball at our goal
            } else if again {
                score += 3.0; // a bounce: another step to come
            }
            if score > best_score {
                best_score = score;
                best = Some(d);
            }
        }
        let d = match best {
            Some(d) => d,
            None => break, // stuck on a bounce: the turn (and the game) ends here
        };
        steps.push(d as i64);
        if !field.step(d) {
            break;
        }
    }
    steps
}

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(out, r#"{{"stdio": 1, "name": "rust-starter", "process": "match"}}"#).unwrap();
    out.flush().unwrap();
    for line in io::stdin().lock().lines() {
        let message = match Reader::parse(&line.expect("stdin")) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("rust-starter: {error}");
                continue;
            }
        };
        if message.get("type").text() != "turn" {
            continue; // "end": nothing kept between matches
        }
        let mv = if message.get("family").text() == "paper_soccer" { soccer_move(&message) } else { cells_move(&message) };
        let text: Vec<String> = mv.iter().map(i64::to_string).collect();
        writeln!(out, r#"{{"move": [{}]}}"#, text.join(",")).unwrap();
        out.flush().unwrap();
    }
}
