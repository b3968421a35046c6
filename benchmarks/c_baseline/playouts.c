/* A plain C yardstick for benchmarks/engine_playouts.py: uniform random playouts of gomoku 15x15
 * (five or more in a row wins, a full board is a draw) and paper soccer 8x10 (single-step actions,
 * bounces continue the turn, a stuck player loses), from the start position, on one core.
 *
 * Written for the benchmark only; nothing in Arbiter builds or imports it. The rules are those of
 * engine/arbiter/engine/mnk.py and paper_soccer.py; the benchmark checks that both sides agree on
 * the mean playout length and the first player's win rate.
 *
 *     playouts gomoku|soccer SECONDS SEED
 *
 * runs for SECONDS of CPU time and prints one line: playouts cpu_seconds wins0 wins1 draws plies plies_squared
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64, and Lemire's multiply-shift for an exactly uniform integer in [0, n). */
static uint64_t rng_state;

static inline uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint32_t below(uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(next_u64() >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = -n % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(next_u64() >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

enum { ONGOING = 0, WIN0 = 1, WIN1 = 2, DRAW = 3 };

/* --- gomoku 15x15, five or more in a row ------------------------------------------------------- */
#define SIDE 15
#define CELLS (SIDE * SIDE)
#define K 5

static int run_length(const uint8_t *board, int x, int y, int dx, int dy, uint8_t stone) {
    int length = 0;
    x += dx;
    y += dy;
    while (x >= 0 && x < SIDE && y >= 0 && y < SIDE && board[y * SIDE + x] == stone) {
        length++;
        x += dx;
        y += dy;
    }
    return length;
}

static int makes_five(const uint8_t *board, int cell, uint8_t stone) {
    static const int DX[4] = {1, 0, 1, 1}, DY[4] = {0, 1, 1, -1};
    int x = cell % SIDE, y = cell / SIDE;
    for (int d = 0; d < 4; d++) {
        int length = 1 + run_length(board, x, y, DX[d], DY[d], stone) + run_length(board, x, y, -DX[d], -DY[d], stone);
        if (length >= K) return 1;
    }
    return 0;
}

static int gomoku_playout(int *plies) {
    uint8_t board[CELLS];
    int16_t empties[CELLS];
    memset(board, 0, sizeof board);
    for (int c = 0; c < CELLS; c++) empties[c] = (int16_t)c;
    int count = CELLS;
    uint8_t stone = 1;
    while (count > 0) {
        int i = (int)below((uint32_t)count);
        int cell = empties[i];
        empties[i] = empties[--count];
        board[cell] = stone;
        if (makes_five(board, cell, stone)) {
            *plies = CELLS - count;
            return stone; /* WIN0 == 1, WIN1 == 2 */
        }
        stone = 3 - stone;
    }
    *plies = CELLS;
    return DRAW;
}

/* --- paper soccer 8x10 ------------------------------------------------------------------------- */
#define WIDTH 8
#define LENGTH 10
#define COLUMNS (WIDTH + 1)
#define POINTS (COLUMNS * (LENGTH + 3)) /* the field plus one goal row at each end */
static const int SDX[8] = {0, 1, 1, 1, 0, -1, -1, -1}, SDY[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

/* closed[i] bit d: the step from point i in direction d is drawn or leaves the field. */
static uint8_t soccer_start[POINTS];

static int on_field(int x, int y) { return x >= 0 && x <= WIDTH && y >= 0 && y <= LENGTH; }

static int is_goal(int x, int y) {
    int c = WIDTH / 2;
    return (y == -1 || y == LENGTH + 1) && x >= c - 1 && x <= c + 1;
}

/* Whether the segment a-b is drawn before the game: the border outside the goal mouths, and the goal walls. */
static int predrawn(int ax, int ay, int bx, int by) {
    int c = WIDTH / 2;
    if (ax == bx && (ax == 0 || ax == WIDTH) && ay >= 0 && by >= 0 && ay <= LENGTH && by <= LENGTH) return 1;
    if (ay == by && (ay == 0 || ay == LENGTH) && (ax < c - 1 || ax > c + 1 || bx < c - 1 || bx > c + 1)) return 1;
    if (ax == bx && (ax == c - 1 || ax == c + 1)) {
        int low = ay < by ? ay : by, high = ay < by ? by : ay;
        if ((low == -1 && high == 0) || (low == LENGTH && high == LENGTH + 1)) return 1;
    }
    return 0;
}

static void soccer_setup(void) {
    int c = WIDTH / 2;
    for (int y = -1; y <= LENGTH + 1; y++) {
        for (int x = 0; x <= WIDTH; x++) {
            uint8_t mask = 0xFF;
            if (on_field(x, y) || is_goal(x, y)) {
                mask = 0;
                for (int d = 0; d < 8; d++) {
                    int tx = x + SDX[d], ty = y + SDY[d];
                    int stays = on_field(tx, ty) ||
                                (is_goal(tx, ty) && (y == 0 || y == LENGTH) && x >= c - 1 && x <= c + 1);
                    if (predrawn(x, y, tx, ty) || (on_field(x, y) && !stays)) mask |= (uint8_t)(1 << d);
                }
            }
            soccer_start[(y + 1) * COLUMNS + x] = mask;
        }
    }
}

static int soccer_playout(int *plies) {
    uint8_t closed[POINTS];
    memcpy(closed, soccer_start, sizeof closed);
    int ball = (LENGTH / 2 + 1) * COLUMNS + WIDTH / 2;
    int to_move = 0, steps = 0;
    for (;;) {
        int open[8], count = 0;
        for (int d = 0; d < 8; d++)
            if (!(closed[ball] >> d & 1)) open[count++] = d;
        int d = open[below((uint32_t)count)];
        int target = ball + SDY[d] * COLUMNS + SDX[d];
        int bounce = closed[target] != 0;
        closed[ball] |= (uint8_t)(1 << d);
        closed[target] |= (uint8_t)(1 << ((d + 4) & 7));
        ball = target;
        steps++;
        int y = target / COLUMNS - 1;
        if (y < 0 || y > LENGTH) {
            *plies = steps;
            return y < 0 ? WIN0 : WIN1;
        }
        if (!bounce) to_move = 1 - to_move;
        if (closed[target] == 0xFF) { /* the player to step is stuck and loses */
            *plies = steps;
            return to_move == 0 ? WIN1 : WIN0;
        }
    }
}

/* --- timing loop ------------------------------------------------------------------------------- */
/* CPU time of this process: other jobs on a shared machine then slow the count, not the clock. */
static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "gomoku") != 0 && strcmp(argv[1], "soccer") != 0)) {
        fprintf(stderr, "usage: %s gomoku|soccer SECONDS SEED\n", argv[0]);
        return 2;
    }
    int (*playout)(int *) = strcmp(argv[1], "gomoku") == 0 ? gomoku_playout : soccer_playout;
    double seconds = atof(argv[2]);
    rng_state = strtoull(argv[3], NULL, 10);
    soccer_setup();
    long long tally[4] = {0, 0, 0, 0}, done = 0, plies_sum = 0, plies_squares = 0;
    double began = cpu_seconds(), elapsed = 0.0;
    while (elapsed < seconds) {
        for (int i = 0; i < 256; i++) {
            int plies;
            tally[playout(&plies)]++;
            plies_sum += plies;
            plies_squares += (long long)plies * plies;
        }
        done += 256;
        elapsed = cpu_seconds() - began;
    }
    printf("%lld %.6f %lld %lld %lld %lld %lld\n", done, elapsed, tally[WIN0], tally[WIN1], tally[DRAW], plies_sum,
           plies_squares);
    return 0;
}
