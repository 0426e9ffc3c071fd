/* A native C bot for the arena: ZeroMQ (libzmq) and msgpack (msgpack-c), no arena code.
 * It compiles as C and as C++ (the contest server builds .cpp files with c++).
 *
 * Written from protocol/SPEC.md: connect a DEALER socket to $ARENA_ENDPOINT, say hello
 * with $ARENA_TOKEN, then answer init with ready and turn with move (echoing seq) until
 * bye. A process may play many matches in a row: every init starts a fresh game.
 *
 * Games:
 *   blocking - take a move that leaves a centrally symmetric board on which the mirror
 *              strategy wins (every free cell far enough from its mirror image); else the
 *              cell that blocks the most free cells (ties: row-major order).
 *   arrows   - alpha-beta over both players' placements, scored by territory (free cells
 *              each player reaches by king steps before the other); pointing at the
 *              opponent's target blocks it at once.
 *
 * With --sequential it plays blocking's first free cell in row-major order at once: the
 * native instant bot of bench/overhead.py.
 *
 * Build: make -C bots/examples    Run: arena match blocking exec:bots/examples/cbot random
 */
#include <msgpack.h>
#include <zmq.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 10000 /* arrows "large" boards go up to 100 x 100, blocking to 50 x 50 */
#define WIN 1000000

static const int DX[8] = {0, 1, 1, 1, 0, -1, -1, -1}; /* 0 = N, then clockwise */
static const int DY[8] = {-1, -1, 0, 1, 1, 1, 0, -1}; /* y grows downwards */

/* ---- msgpack helpers ------------------------------------------------------------- */

static const msgpack_object *get(const msgpack_object *map, const char *key) {
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP) return NULL;
    size_t len = strlen(key);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == len && memcmp(k->via.str.ptr, key, len) == 0)
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

static long long as_int(const msgpack_object *o, long long fallback) {
    if (o == NULL) return fallback;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) return (long long)o->via.u64;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return o->via.i64;
    return fallback;
}

static const msgpack_object *item(const msgpack_object *array, uint32_t i) {
    if (array == NULL || array->type != MSGPACK_OBJECT_ARRAY || i >= array->via.array.size) return NULL;
    return &array->via.array.ptr[i];
}

static uint32_t length(const msgpack_object *array) {
    return array != NULL && array->type == MSGPACK_OBJECT_ARRAY ? array->via.array.size : 0;
}

static int is_str(const msgpack_object *o, const char *text) {
    return o != NULL && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(text) &&
           memcmp(o->via.str.ptr, text, o->via.str.size) == 0;
}

static void pack_str(msgpack_packer *pk, const char *text) {
    size_t len = strlen(text);
    msgpack_pack_str(pk, len);
    msgpack_pack_str_body(pk, text, len);
}

static void send_buffer(void *sock, msgpack_sbuffer *buf) {
    if (zmq_send(sock, buf->data, buf->size, 0) < 0) {
        fprintf(stderr, "cbot: send failed: %s\n", zmq_strerror(errno));
        exit(1);
    }
    msgpack_sbuffer_clear(buf);
}

/* ---- blocking -------------------------------------------------------------------- */

static int B_rows, B_cols;
static unsigned char B_blocked[MAX_CELLS];

static void blocking_take(unsigned char *grid, int r, int c) {
    for (int rr = r - 1; rr <= r + 1; rr++)
        for (int cc = c - 1; cc <= c + 1; cc++)
            if (rr >= 0 && rr < B_rows && cc >= 0 && cc < B_cols) grid[rr * B_cols + cc] = 1;
}

static int blocking_gain(int r, int c) { /* free cells a move at (r, c) would block */
    int n = 0;
    for (int rr = r - 1; rr <= r + 1; rr++)
        for (int cc = c - 1; cc <= c + 1; cc++)
            if (rr >= 0 && rr < B_rows && cc >= 0 && cc < B_cols && !B_blocked[rr * B_cols + cc]) n++;
    return n;
}

/* True when the grid is centrally symmetric and every free cell lies more than two king
 * steps from its mirror image: then whoever moves next loses to the mirror strategy,
 * since a move never touches its own mirror cell. */
static int mirror_lost_for_next(const unsigned char *grid) {
    for (int r = 0; r < B_rows; r++)
        for (int c = 0; c < B_cols; c++) {
            int mr = B_rows - 1 - r, mc = B_cols - 1 - c;
            if (grid[r * B_cols + c] != grid[mr * B_cols + mc]) return 0;
            if (!grid[r * B_cols + c] && abs(mr - r) <= 2 && abs(mc - c) <= 2) return 0;
        }
    return 1;
}

static void blocking_choose(int *out_r, int *out_c) {
    static unsigned char trial[MAX_CELLS];
    int best = -1, br = -1, bc = -1;
    long long budget = 4000000; /* cells examined by the symmetry check, per move */
    for (int r = 0; r < B_rows; r++)
        for (int c = 0; c < B_cols; c++) {
            if (B_blocked[r * B_cols + c]) continue;
            if (budget > 0) {
                budget -= (long long)B_rows * B_cols;
                memcpy(trial, B_blocked, (size_t)(B_rows * B_cols));
                blocking_take(trial, r, c);
                if (mirror_lost_for_next(trial)) {
                    *out_r = r, *out_c = c;
                    return;
                }
            }
            int gain = blocking_gain(r, c);
            if (gain > best) best = gain, br = r, bc = c;
        }
    *out_r = br, *out_c = bc; /* (-1, -1) only when no cell is free: never asked then */
}

static void blocking_init(const msgpack_object *setup) {
    B_rows = (int)as_int(get(setup, "rows"), 0);
    B_cols = (int)as_int(get(setup, "cols"), 0);
    if (B_rows < 1 || B_cols < 1 || B_rows * B_cols > MAX_CELLS) B_rows = B_cols = 0;
    memset(B_blocked, 0, sizeof B_blocked);
    const msgpack_object *blocked = get(setup, "blocked");
    for (uint32_t i = 0; i < length(blocked); i++) {
        int r = (int)as_int(item(item(blocked, i), 0), -1), c = (int)as_int(item(item(blocked, i), 1), -1);
        if (r >= 0 && r < B_rows && c >= 0 && c < B_cols) B_blocked[r * B_cols + c] = 1;
    }
}

static void blocking_event(const msgpack_object *move) {
    int r = (int)as_int(item(move, 0), -1), c = (int)as_int(item(move, 1), -1);
    if (r >= 0 && r < B_rows && c >= 0 && c < B_cols) blocking_take(B_blocked, r, c);
}

/* ---- arrows ---------------------------------------------------------------------- */

static int A_cols, A_rows, A_seat;
static unsigned char A_occ[MAX_CELLS]; /* blocked or holding a piece */
static int A_tgt[2];                   /* the cell each seat must fill next, -1 off the board */
static int A_dist[2][MAX_CELLS];
static int A_queue[MAX_CELLS];
static long long A_nodes, A_budget;

static int step(int cell, int d) {
    int x = cell % A_cols + DX[d], y = cell / A_cols + DY[d];
    return x >= 0 && x < A_cols && y >= 0 && y < A_rows ? y * A_cols + x : -1;
}

static int playable(int p) { return A_tgt[p] >= 0 && !A_occ[A_tgt[p]] && A_tgt[p] != A_tgt[1 - p]; }

static void flood(int p) {
    int cells = A_cols * A_rows, head = 0, tail = 0;
    for (int i = 0; i < cells; i++) A_dist[p][i] = INT32_MAX;
    if (A_tgt[p] < 0 || A_occ[A_tgt[p]]) return;
    A_dist[p][A_tgt[p]] = 0;
    A_queue[tail++] = A_tgt[p];
    while (head < tail) {
        int c = A_queue[head++];
        for (int d = 0; d < 8; d++) {
            int n = step(c, d);
            if (n >= 0 && !A_occ[n] && A_dist[p][n] == INT32_MAX) {
                A_dist[p][n] = A_dist[p][c] + 1;
                A_queue[tail++] = n;
            }
        }
    }
}

static int territory(int p) { /* cells p reaches first minus cells the opponent reaches first */
    int cells = A_cols * A_rows, score = 0;
    flood(p);
    flood(1 - p);
    for (int i = 0; i < cells; i++) score += (A_dist[p][i] < A_dist[1 - p][i]) - (A_dist[1 - p][i] < A_dist[p][i]);
    return score;
}

static int search(int p, int depth, int ply, int alpha, int beta) {
    if (!playable(p)) return ply - WIN;
    if (depth == 0 || ++A_nodes > A_budget) return territory(p);
    int t = A_tgt[p], best = -WIN - 1;
    A_occ[t] = 1;
    for (int d = 0; d < 8 && alpha < beta; d++) {
        A_tgt[p] = step(t, d);
        int score = -search(1 - p, depth - 1, ply + 1, -beta, -alpha);
        if (score > best) best = score;
        if (best > alpha) alpha = best;
    }
    A_tgt[p] = t;
    A_occ[t] = 0;
    return best;
}

static int arrows_choose(long long time_left_ms) {
    int cells = A_cols * A_rows, t = A_tgt[A_seat], best = -WIN - 2, choice = 0;
    /* Deeper on small boards; shallow when the board is large or time is short. */
    int depth = cells <= 100 ? 5 : cells <= 400 ? 3 : 1;
    if (time_left_ms < 1000) depth = 1;
    A_nodes = 0;
    A_budget = 200000;
    A_occ[t] = 1;
    for (int d = 0; d < 8; d++) {
        A_tgt[A_seat] = step(t, d);
        int score = -search(1 - A_seat, depth - 1, 1, -WIN - 1, -best);
        if (score > best) best = score, choice = d;
    }
    A_tgt[A_seat] = t;
    A_occ[t] = 0;
    return choice;
}

static void arrows_place(int p, int d) {
    if (A_tgt[p] < 0 || d < 0 || d > 7) return;
    A_occ[A_tgt[p]] = 1;
    A_tgt[p] = step(A_tgt[p], d);
}

static void arrows_init(const msgpack_object *setup, int seat) {
    A_cols = (int)as_int(get(setup, "cols"), 0);
    A_rows = (int)as_int(get(setup, "rows"), 0);
    A_seat = seat & 1;
    if (A_cols < 1 || A_rows < 1 || A_cols * A_rows > MAX_CELLS) A_cols = A_rows = 0;
    memset(A_occ, 0, sizeof A_occ);
    const msgpack_object *blocked = get(setup, "blocked"), *heads = get(setup, "heads"), *dirs = get(setup, "dirs");
    for (uint32_t i = 0; i < length(blocked); i++) {
        int x = (int)as_int(item(item(blocked, i), 0), 0) - 1, y = (int)as_int(item(item(blocked, i), 1), 0) - 1;
        if (x >= 0 && x < A_cols && y >= 0 && y < A_rows) A_occ[y * A_cols + x] = 1;
    }
    for (int p = 0; p < 2; p++) {
        int x = (int)as_int(item(item(heads, (uint32_t)p), 0), 0) - 1, y = (int)as_int(item(item(heads, (uint32_t)p), 1), 0) - 1;
        int d = (int)as_int(item(dirs, (uint32_t)p), 0);
        A_tgt[p] = -1;
        if (x >= 0 && x < A_cols && y >= 0 && y < A_rows && d >= 0 && d < 8) {
            A_occ[y * A_cols + x] = 1;
            A_tgt[p] = step(y * A_cols + x, d);
        }
    }
}

/* ---- the protocol loop ------------------------------------------------------------ */

enum game { NONE, BLOCKING, ARROWS };

static void blocking_first_free(int *out_r, int *out_c) {
    for (int cell = 0; cell < B_rows * B_cols; cell++)
        if (!B_blocked[cell]) {
            *out_r = cell / B_cols, *out_c = cell % B_cols;
            return;
        }
    *out_r = *out_c = -1;
}

int main(int argc, char **argv) {
    int sequential = argc > 1 && strcmp(argv[1], "--sequential") == 0;
    const char *endpoint = getenv("ARENA_ENDPOINT"), *token = getenv("ARENA_TOKEN");
    if (endpoint == NULL || token == NULL) {
        fprintf(stderr, "cbot: ARENA_ENDPOINT and ARENA_TOKEN must be set (run me through the arena)\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(sock, endpoint) != 0) {
        fprintf(stderr, "cbot: cannot connect to %s: %s\n", endpoint, zmq_strerror(errno));
        return 1;
    }
    msgpack_sbuffer buf;
    msgpack_packer pk;
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    pack_str(&pk, "type"), pack_str(&pk, "hello");
    pack_str(&pk, "protocol"), msgpack_pack_int(&pk, 1);
    pack_str(&pk, "token"), pack_str(&pk, token);
    pack_str(&pk, "name"), pack_str(&pk, "cbot");
    send_buffer(sock, &buf);

    enum game game = NONE;
    int seat = 0;
    msgpack_unpacked msg;
    msgpack_unpacked_init(&msg);
    for (;;) {
        zmq_msg_t frame;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, sock, 0) < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "cbot: receive failed: %s\n", zmq_strerror(errno));
            return 1;
        }
        size_t offset = 0;
        int ok = msgpack_unpack_next(&msg, (const char *)zmq_msg_data(&frame), zmq_msg_size(&frame), &offset) == MSGPACK_UNPACK_SUCCESS;
        zmq_msg_close(&frame); /* msgpack-c copied what it needs into its zone */
        if (!ok) {
            fprintf(stderr, "cbot: undecodable frame from the referee\n");
            continue;
        }
        const msgpack_object *m = &msg.data, *type = get(m, "type");
        long long seq = as_int(get(m, "seq"), 0);
        if (is_str(type, "init")) {
            const msgpack_object *name = get(m, "game"), *setup = get(m, "setup");
            seat = (int)as_int(get(m, "seat"), 0);
            game = is_str(name, "blocking") ? BLOCKING : is_str(name, "arrows") ? ARROWS : NONE;
            if (game == BLOCKING) blocking_init(setup);
            else if (game == ARROWS) arrows_init(setup, seat);
            else fprintf(stderr, "cbot: I play blocking and arrows only\n");
            msgpack_pack_map(&pk, 2);
            pack_str(&pk, "type"), pack_str(&pk, "ready");
            pack_str(&pk, "seq"), msgpack_pack_long_long(&pk, seq);
            send_buffer(sock, &buf);
        } else if (is_str(type, "turn")) {
            const msgpack_object *events = get(m, "events");
            for (uint32_t i = 0; i < length(events); i++) {
                const msgpack_object *event = item(events, i);
                int actor = (int)as_int(item(event, 0), -1);
                if (actor < 0 || actor == seat) continue; /* both games have no referee events */
                if (game == BLOCKING) blocking_event(item(event, 1));
                else if (game == ARROWS) arrows_place(actor & 1, (int)as_int(item(event, 1), -1));
            }
            msgpack_pack_map(&pk, 3);
            pack_str(&pk, "type"), pack_str(&pk, "move");
            pack_str(&pk, "seq"), msgpack_pack_long_long(&pk, seq);
            pack_str(&pk, "move");
            if (game == BLOCKING) {
                int r, c;
                if (sequential) blocking_first_free(&r, &c);
                else blocking_choose(&r, &c);
                if (r >= 0) blocking_take(B_blocked, r, c);
                msgpack_pack_array(&pk, 2);
                msgpack_pack_int(&pk, r), msgpack_pack_int(&pk, c);
            } else if (game == ARROWS) {
                int d = arrows_choose(as_int(get(m, "time_left_ms"), 0));
                arrows_place(seat, d);
                msgpack_pack_int(&pk, d);
            } else {
                msgpack_pack_nil(&pk); /* an illegal move: this bot cannot play that game */
            }
            send_buffer(sock, &buf);
        } else if (is_str(type, "bye")) {
            break;
        } /* welcome and end need no answer */
    }
    msgpack_unpacked_destroy(&msg);
    msgpack_sbuffer_destroy(&buf);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return 0;
}
