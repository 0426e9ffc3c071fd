#!/usr/bin/env node
// A stdio bot in JavaScript (Node.js, no packages): one JSON object per line on stdin and
// stdout, as protocol/SPEC.md section 10 describes. Plays `blocking` and `arrows`.
//
//   arena match blocking "stdio:node bots/examples/stdio_bot.js" maxblock --show
//
// blocking: with at most 20 free cells, an exact game-tree search (memoised on bit
//           masks); otherwise the cell that blocks the most free cells, preferring cells
//           near the border.
// arrows:   pointing at the opponent's target blocks it at once; otherwise the direction
//           whose next target keeps the largest reachable area (flood fill), then the most
//           free neighbours.
"use strict";

const readline = require("readline");

const DIRS = [[0, -1], [1, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1]]; // 0 = N, clockwise

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// ---- blocking: cells are [r, c], row 0 at the top --------------------------------------

class Blocking {
  constructor(setup) {
    this.rows = setup.rows;
    this.cols = setup.cols;
    this.blocked = new Set(setup.blocked.map(([r, c]) => r * this.cols + c));
  }

  area(r, c) {
    const cells = [];
    for (let rr = r - 1; rr <= r + 1; rr++)
      for (let cc = c - 1; cc <= c + 1; cc++)
        if (rr >= 0 && rr < this.rows && cc >= 0 && cc < this.cols) cells.push(rr * this.cols + cc);
    return cells;
  }

  play([r, c]) {
    for (const cell of this.area(r, c)) this.blocked.add(cell);
  }

  solve(free) {
    // Bit i stands for free[i]; a move clears its own bit and its neighbours' bits.
    const index = new Map(free.map((cell, i) => [cell, i]));
    const masks = free.map((cell) => {
      let mask = 0;
      for (const other of this.area(Math.floor(cell / this.cols), cell % this.cols))
        if (index.has(other)) mask |= 1 << index.get(other);
      return mask;
    });
    const memo = new Map();
    const wins = (left) => { // the player to move on `left` wins
      if (memo.has(left)) return memo.get(left);
      let result = false;
      for (let i = 0; i < masks.length && !result; i++)
        if (left & (1 << i) && !wins(left & ~masks[i])) result = true;
      memo.set(left, result);
      return result;
    };
    const all = (1 << free.length) - 1; // at most 20 bits: safe in JavaScript's 32-bit bit operations
    for (let i = 0; i < masks.length; i++) if (!wins(all & ~masks[i])) return free[i];
    return null; // a lost position: play on by the heuristic
  }

  choose() {
    const free = [];
    for (let i = 0; i < this.rows * this.cols; i++) if (!this.blocked.has(i)) free.push(i);
    if (free.length <= 20) {
      const cell = this.solve(free);
      if (cell !== null) return [Math.floor(cell / this.cols), cell % this.cols];
    }
    let best = null;
    let bestKey = null;
    for (const cell of free) {
      const r = Math.floor(cell / this.cols), c = cell % this.cols;
      const gain = this.area(r, c).filter((i) => !this.blocked.has(i)).length;
      if (gain === free.length) return [r, c]; // nothing left for the opponent
      const edge = Math.min(r, c, this.rows - 1 - r, this.cols - 1 - c);
      const key = [gain, -edge];
      if (best === null || key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
        best = [r, c];
        bestKey = key;
      }
    }
    return best;
  }
}

// ---- arrows: cells are [x, y], 1-based, y grows downwards -------------------------------

class Arrows {
  constructor(setup, seat) {
    this.cols = setup.cols;
    this.rows = setup.rows;
    this.seat = seat;
    this.occupied = new Set(setup.blocked.map(([x, y]) => this.key(x, y)));
    this.heads = setup.heads.map(([x, y]) => [x, y]);
    this.dirs = setup.dirs.slice();
    for (const [x, y] of this.heads) this.occupied.add(this.key(x, y));
  }

  key(x, y) {
    return y * 1000 + x;
  }

  onBoard(x, y) {
    return x >= 1 && x <= this.cols && y >= 1 && y <= this.rows;
  }

  target(seat) {
    const [x, y] = this.heads[seat];
    const [dx, dy] = DIRS[this.dirs[seat]];
    return [x + dx, y + dy];
  }

  free(x, y) {
    return this.onBoard(x, y) && !this.occupied.has(this.key(x, y));
  }

  play(seat, d) {
    const [x, y] = this.target(seat);
    this.occupied.add(this.key(x, y));
    this.heads[seat] = [x, y];
    this.dirs[seat] = d;
  }

  reach(x, y, limit) {
    // Free cells reachable by king steps from [x, y] (counted up to limit, for speed).
    const seen = new Set([this.key(x, y)]);
    const queue = [[x, y]];
    while (queue.length && seen.size < limit) {
      const [cx, cy] = queue.shift();
      for (const [dx, dy] of DIRS) {
        const nx = cx + dx, ny = cy + dy;
        if (this.free(nx, ny) && !seen.has(this.key(nx, ny))) {
          seen.add(this.key(nx, ny));
          queue.push([nx, ny]);
        }
      }
    }
    return seen.size;
  }

  choose() {
    const [tx, ty] = this.target(this.seat);
    const [ox, oy] = this.target(1 - this.seat);
    this.occupied.add(this.key(tx, ty)); // our new piece, for the look-ahead
    let best = 0;
    let bestKey = null;
    for (let d = 0; d < 8; d++) {
      const nx = tx + DIRS[d][0], ny = ty + DIRS[d][1];
      let key;
      if (nx === ox && ny === oy && this.free(ox, oy)) key = [2, 0, 0]; // the opponent is blocked
      else if (!this.free(nx, ny)) key = [0, 0, 0]; // we would be blocked next turn
      else {
        let room = 0;
        for (const [dx, dy] of DIRS) if (this.free(nx + dx, ny + dy)) room++;
        key = [1, this.reach(nx, ny, 200), room];
      }
      if (bestKey === null || key[0] > bestKey[0] || (key[0] === bestKey[0] &&
          (key[1] > bestKey[1] || (key[1] === bestKey[1] && key[2] > bestKey[2])))) {
        best = d;
        bestKey = key;
      }
    }
    this.occupied.delete(this.key(tx, ty));
    return best;
  }
}

// ---- the protocol loop ----------------------------------------------------------------

let game = null;
let seat = 0;
const lines = readline.createInterface({ input: process.stdin, terminal: false });

lines.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === "init") {
    seat = msg.seat;
    if (msg.game === "blocking") game = new Blocking(msg.setup);
    else if (msg.game === "arrows") game = new Arrows(msg.setup, seat);
    else {
      game = null;
      process.stderr.write(`stdio_bot.js plays blocking and arrows only, not ${msg.game}\n`);
    }
    send({ type: "ready", seq: msg.seq });
  } else if (msg.type === "turn") {
    for (const [actor, move] of msg.events) {
      if (actor < 0 || actor === seat || game === null) continue; // no referee events in these games
      if (game instanceof Blocking) game.play(move);
      else game.play(actor, move);
    }
    let move = null; // an illegal move: this bot cannot play that game
    if (game instanceof Blocking) {
      move = game.choose();
      game.play(move);
    } else if (game instanceof Arrows) {
      move = game.choose();
      game.play(seat, move);
    }
    send({ type: "move", seq: msg.seq, move: move });
  } else if (msg.type === "bye") {
    lines.close();
    process.exit(0);
  } // `end` needs no answer: the next `init` starts a new game
});
