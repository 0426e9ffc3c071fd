/* A bench bot in C that answers at once on the stdio protocol (protocol/SPEC.md section 10).
 *
 * Blocking only, as bench/instant_bot.py: at init it plays out the game in which both seats
 * take the first free cell in row-major order and keeps its own moves; at every turn it sends
 * the next one without reading the events. No library beyond libc, so the referee's cost per
 * ply can be measured with a native bot on pipes. Build: cc -O2 -o instant_stdio instant_stdio.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[(1 << 20) + 2]; /* one message: at most 1 MiB and its newline */

/* The integer after key (a quoted name and its colon, as the referee writes compact JSON); -1 if absent. */
static long field(const char *text, const char *key) {
    const char *at = strstr(text, key);
    return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

static void block_around(char *blocked, long rows, long cols, long r, long c) {
    for (long a = r - 1; a <= r + 1; a++)
        for (long b = c - 1; b <= c + 1; b++)
            if (a >= 0 && a < rows && b >= 0 && b < cols) blocked[a * cols + b] = 1;
}

int main(void) {
    long *moves = NULL, count = 0, next = 0;
    while (fgets(line, sizeof line, stdin)) {
        long seq = field(line, "\"seq\":");
        if (strstr(line, "\"type\":\"turn\"")) {
            long r = next < count ? moves[2 * next] : -1, c = next < count ? moves[2 * next + 1] : -1;
            next++;
            printf("{\"type\":\"move\",\"seq\":%ld,\"move\":[%ld,%ld]}\n", seq, r, c);
            fflush(stdout);
        } else if (strstr(line, "\"type\":\"init\"")) {
            long rows = field(line, "\"rows\":"), cols = field(line, "\"cols\":"), seat = field(line, "\"seat\":");
            long first = field(line, "\"to_move\":");
            if (rows <= 0 || cols <= 0) return 2;
            char *blocked = calloc((size_t)(rows * cols), 1);
            free(moves);
            moves = malloc(sizeof(long) * 2 * (size_t)(rows * cols));
            if (!blocked || !moves) return 2;
            const char *p = strstr(line, "\"blocked\":[");
            if (p) { /* [[r,c],[r,c],...] or [] */
                p += strlen("\"blocked\":[");
                while (*p == '[') {
                    char *end;
                    long r = strtol(p + 1, &end, 10), c = strtol(end + 1, &end, 10);
                    if (r >= 0 && r < rows && c >= 0 && c < cols) blocked[r * cols + c] = 1;
                    p = end + 1; /* past the pair's ']' */
                    if (*p == ',') p++;
                }
            }
            long mover = first > 0 ? first : 0;
            count = next = 0;
            for (long r = 0; r < rows; r++)
                for (long c = 0; c < cols; c++)
                    if (!blocked[r * cols + c]) {
                        if (mover == seat) { moves[2 * count] = r; moves[2 * count + 1] = c; count++; }
                        block_around(blocked, rows, cols, r, c);
                        mover ^= 1;
                    }
            free(blocked);
            printf("{\"type\":\"ready\",\"seq\":%ld}\n", seq);
            fflush(stdout);
        } else if (strstr(line, "\"type\":\"bye\"")) {
            break;
        }
    }
    free(moves);
    return 0;
}
