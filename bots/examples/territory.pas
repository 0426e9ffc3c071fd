{ Territory: a playing module for the arrows contest ("swawolne strzaly", 2001),
  written for Turbo Pascal 7 with the contest's interface and rules: no other units,
  no compiler directives, no input or output, an empty initialisation part.

  Strategy: iterative-deepening alpha-beta over the placements of both players.
  A position is scored by territory: the free cells that a player reaches, by king
  steps from the cell it must fill next, strictly before its opponent does. Time is
  planned by counting search nodes, because a module may use no clock: the time left
  (sec, milliseconds in the arena) is shared out over the moves still to come.

  Useful rule to remember: a player whose target equals the opponent's target is
  blocked, so pointing at the cell the opponent must fill next wins at once. }
unit territory;

interface

type
  TPair = record x, y: integer end;
  TFileOfPairs = file of TPair;

procedure InitGame(var f: TFileOfPairs; sec: longint);
procedure turn(var d: integer; sec: longint);

implementation

const
  W = 12;                  { row stride: up to 10 cells plus a border cell on each side }
  Cells = 144;             { W * W: cells 0..143, cell = y * W + x }
  MaxSide = 10;
  Far = 999;               { distance of a cell nobody can reach }
  Win = 30000;             { score of a won position (less the plies it takes) }
  MaxDepth = 30;
  NodesPerMs = 20;         { a cautious guess of the search speed on a slow machine }
  MaxNodes = 40000;        { never think longer than this per move }
  MinNodes = 100;
  { Cell offsets of the eight directions: 0 = N, then clockwise (y grows downwards). }
  Step: array[0..7] of integer = (-12, -11, 1, 13, 12, 11, -1, -13);

type
  TDirs = array[0..7] of integer;  { directions in the order they are tried }

var
  occ: array[0..Cells - 1] of boolean;  { blocked, holding a piece, or off the board }
  tgt: array[0..1] of integer;           { the cell each player must fill next; 0 = first }
  dist: array[0..1, 0..Cells - 1] of integer;
  queue: array[0..Cells - 1] of integer;
  me: integer;                           { 0 or 1 once known (first turn), else -1 }
  freeCells: integer;
  usable: boolean;                       { false when the board does not fit the arrays }
  nodes, budget: longint;
  aborted: boolean;

function Playable(p: integer): boolean;
{ Player p can fill its target: free (the border counts as taken) and not the other's. }
begin
  Playable := (not occ[tgt[p]]) and (tgt[p] <> tgt[1 - p]);
end;

procedure Flood(p: integer);
{ King-step distances from player p's target over the free cells. }
var
  c, n, k, head, tail: integer;
begin
  for c := 0 to Cells - 1 do dist[p, c] := Far;
  c := tgt[p];
  if occ[c] then exit;
  dist[p, c] := 0;
  queue[0] := c;
  head := 0;
  tail := 1;
  while head < tail do
  begin
    c := queue[head];
    inc(head);
    for k := 0 to 7 do
    begin
      n := c + Step[k];
      if (not occ[n]) and (dist[p, n] = Far) then
      begin
        dist[p, n] := dist[p, c] + 1;
        queue[tail] := n;
        inc(tail);
      end;
    end;
  end;
end;

function Evaluate(p: integer): integer;
{ Territory of p (to move) minus the opponent's; cells at equal distance count for nobody. }
var
  c, score: integer;
begin
  Flood(p);
  Flood(1 - p);
  score := 0;
  for c := W + 1 to Cells - W - 2 do
    if dist[p, c] < dist[1 - p, c] then inc(score)
    else if dist[1 - p, c] < dist[p, c] then dec(score);
  Evaluate := score;
end;

function Room(c: integer): integer;
{ Free neighbours of cell c: the greedy measure, used to order moves. }
var
  k, r: integer;
begin
  r := 0;
  for k := 0 to 7 do
    if not occ[c + Step[k]] then inc(r);
  Room := r;
end;

procedure Order(p: integer; var dirs: TDirs);
{ Directions for player p (its target already filled), most promising first. }
var
  key: array[0..7] of integer;
  k, j, n, kk, dd: integer;
begin
  for k := 0 to 7 do
  begin
    n := tgt[p] + Step[k];
    if n = tgt[1 - p] then key[k] := 100      { the opponent is blocked at once }
    else if occ[n] then key[k] := -100       { we would be blocked next turn }
    else key[k] := Room(n);
    dirs[k] := k;
  end;
  for k := 1 to 7 do
  begin
    kk := key[k];
    dd := dirs[k];
    j := k - 1;
    while (j >= 0) and (key[j] < kk) do
    begin
      key[j + 1] := key[j];
      dirs[j + 1] := dirs[j];
      dec(j);
    end;
    key[j + 1] := kk;
    dirs[j + 1] := dd;
  end;
end;

function Search(p, depth, ply, alpha, beta: integer): integer;
{ Negamax with alpha-beta; p is to move. }
var
  dirs: TDirs;
  k, t, score, best: integer;
begin
  if not Playable(p) then
  begin
    Search := ply - Win;  { blocked: lost, later is better }
    exit;
  end;
  if depth = 0 then
  begin
    Search := Evaluate(p);
    exit;
  end;
  inc(nodes);
  if nodes > budget then
  begin
    aborted := true;
    Search := 0;
    exit;
  end;
  t := tgt[p];
  occ[t] := true;
  Order(p, dirs);
  best := -Win - 1;
  for k := 0 to 7 do
  begin
    tgt[p] := t + Step[dirs[k]];
    score := -Search(1 - p, depth - 1, ply + 1, -beta, -alpha);
    if aborted then break;
    if score > best then best := score;
    if best > alpha then alpha := best;
    if alpha >= beta then break;
  end;
  tgt[p] := t;
  occ[t] := false;
  Search := best;
end;

function BestMove(sec: longint): integer;
{ Iterative deepening within the node budget; the last complete depth decides. }
var
  dirs: TDirs;
  depth, k, t, score, best, bestDir, chosen, alpha: integer;
begin
  if sec > 1000000 then sec := 1000000;
  budget := (sec div (freeCells div 2 + 4)) * NodesPerMs;
  if budget > MaxNodes then budget := MaxNodes;
  if budget < MinNodes then budget := MinNodes;
  nodes := 0;
  t := tgt[me];
  occ[t] := true;
  Order(me, dirs);
  chosen := dirs[0];  { the greedy choice, should not even depth 1 finish }
  for depth := 1 to MaxDepth do
  begin
    aborted := false;
    best := -Win - 1;
    bestDir := chosen;
    alpha := -Win - 1;
    { The previous best goes first, so alpha-beta cuts the most. }
    for k := 0 to 8 do
    begin
      if k = 0 then tgt[me] := t + Step[chosen]
      else if dirs[k - 1] = chosen then continue
      else tgt[me] := t + Step[dirs[k - 1]];
      score := -Search(1 - me, depth - 1, 1, -Win - 1, -alpha);
      if aborted then break;
      if score > best then
      begin
        best := score;
        if k = 0 then bestDir := chosen else bestDir := dirs[k - 1];
      end;
      if best > alpha then alpha := best;
    end;
    if aborted then break;
    chosen := bestDir;
    if (best > Win - 100) or (best < 100 - Win) then break;  { the result is known }
    if depth > freeCells then break;                          { deeper than the game }
    if nodes * 4 > budget then break;                          { no time for the next }
  end;
  tgt[me] := t;
  occ[t] := false;
  BestMove := chosen;
end;

procedure Place(p, d: integer);
{ Player p fills its target with an arrow pointing in direction d. }
begin
  occ[tgt[p]] := true;
  tgt[p] := tgt[p] + Step[d];
  dec(freeCells);
end;

procedure InitGame(var f: TFileOfPairs; sec: longint);
var
  p: TPair;
  cols, rows, x, y, c: integer;
  head: array[0..1] of integer;
  dir: array[0..1] of integer;
begin
  reset(f);
  read(f, p);
  cols := p.x;
  rows := p.y;
  usable := (cols >= 1) and (cols <= MaxSide) and (rows >= 1) and (rows <= MaxSide);
  me := -1;
  for c := 0 to Cells - 1 do occ[c] := true;
  if usable then
  begin
    for y := 1 to rows do
      for x := 1 to cols do
        occ[y * W + x] := false;
    read(f, p);
    head[0] := p.y * W + p.x;
    read(f, p);
    head[1] := p.y * W + p.x;
    read(f, p);
    dir[0] := p.x and 7;
    dir[1] := p.y and 7;
    while not eof(f) do
    begin
      read(f, p);
      if (p.x >= 1) and (p.x <= cols) and (p.y >= 1) and (p.y <= rows) then
        occ[p.y * W + p.x] := true;
    end;
    occ[head[0]] := true;
    occ[head[1]] := true;
    tgt[0] := head[0] + Step[dir[0]];
    tgt[1] := head[1] + Step[dir[1]];
  end;
  close(f);
  freeCells := 0;
  for c := 0 to Cells - 1 do
    if not occ[c] then inc(freeCells);
end;

procedure turn(var d: integer; sec: longint);
begin
  if not usable then
  begin
    d := 255;
    exit;
  end;
  if me < 0 then
    if d = 255 then me := 0 else me := 1;
  if (d >= 0) and (d <= 7) then Place(1 - me, d);  { the opponent's new arrow }
  if not Playable(me) then
    d := 255
  else
  begin
    d := BestMove(sec);
    Place(me, d);
  end;
end;

end.
