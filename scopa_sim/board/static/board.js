// The scopa-sim analysis board: plain JavaScript, no build step, nothing fetched but
// this server's own files and JSON API (scopa_sim/board/app.py).
"use strict";

const PAGE = "p" + Math.random().toString(36).slice(2, 12);
const $ = (id) => document.getElementById(id);
const RANKS = "A234567JQK";
const SUITS = "DHCS";
let META = null;

// ------------------------------------------------------------------ helpers
function esc(text) {
  return String(text).replace(/[&<>"']/g, (ch) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"
  })[ch]);
}

// One card as the review page draws it (scopa_sim.records.review_html.card_html).
function card(name) {
  const rank = name.slice(0, -1), suit = name.slice(-1);
  if (!RANKS.includes(rank) || !SUITS.includes(suit) || rank.length !== 1) return esc(name);
  const sym = META ? META.symbols[suit] : suit, title = META ? META.suit_names[suit] : "";
  return `<span class="c ${suit}" title="${esc(name)} (${esc(title)})">${esc(rank)}<b>${sym}</b></span>`;
}
function cards(list) {
  return list && list.length ? list.map(card).join("") : '<span class="empty">-</span>';
}
// Cards on the board, each in a slot that the analysis writes its value beside.
function slots(list) {
  return list && list.length ? list.map((c) =>
    `<span class="slot" data-card="${esc(c)}">${card(c)}<span class="val"></span></span>`).join("") :
    '<span class="empty">-</span>';
}
// A play (7D x 5H 2S) as its card, a cross and the cards taken (review_html.play_html).
// A play's text as its parts, with Cirulla's (RULES.md §10) the matta's named value
// (7H=5 x 3D 2C) and a declaration (2S +3).
function parsePlay(text) {
  let rest = text, declared = "";
  const m = rest.match(/^(.*) \+(\d+)$/);
  if (m) [rest, declared] = [m[1], m[2]];
  const [c, take] = rest.split(" x ");
  const [name, value] = c.trim().split("=");
  return { card: name, value, take: (take || "").trim().split(/\s+/).filter(Boolean), declared };
}
function play(text) {
  const { card: name, value, take, declared } = parsePlay(text);
  let out = card(name);
  if (value) out += `<span class="named" title="the matta names ${esc(value)}">=${esc(value)}</span>`;
  if (take.length) out += '<span class="x">\u2715</span>' + cards(take);
  if (declared) out += ` <span class="declared" title="declares ${esc(declared)}">+${esc(declared)}</span>`;
  return out;
}
function label(name) {
  if (!name) return "";
  const colour = META.label_colours[name] || "#666";
  return `<span class="lab" style="background:${colour}">${esc(name)}</span>`;
}
function num(x, digits = 2, sign = true) {
  if (x === null || x === undefined || !isFinite(x)) return "-";
  const s = Number(x).toFixed(digits);
  return sign && x >= 0 ? "+" + s : s;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function showMessage(text) {
  const m = $("message");
  m.textContent = text;
  m.hidden = !text;
}

class BoardError extends Error {}

// A JSON request to the board; a 4xx/5xx answer throws its one-line error.
async function api(path, body, raw) {
  const opts = { method: body === undefined ? "GET" : "POST", headers: { "X-Scopa-Board": "1" } };
  if (body !== undefined) {
    if (raw) {
      opts.body = body;
    } else {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
  }
  let r;
  try {
    r = await fetch(path, opts);
  } catch (e) {
    throw new BoardError("the board's server does not answer (is scopa-sim board running?)");
  }
  let doc;
  try {
    doc = await r.json();
  } catch (e) {
    doc = { error: `the server answered ${r.status}` };
  }
  if (!r.ok) throw new BoardError(doc.error || `the server answered ${r.status}`);
  return doc;
}

// Run an action, showing its error (if any) in the message area.
async function guarded(fn) {
  try {
    showMessage("");
    return await fn();
  } catch (e) {
    showMessage(e instanceof BoardError ? e.message : `error: ${e.message || e}`);
    return undefined;
  }
}

// Follow a job until it is final; onUpdate(job) after each poll. A newer job of the
// same slot (tokens[slot]) stops the older loop.
const tokens = {};
async function follow(slot, job, onUpdate) {
  tokens[slot] = job.id;
  while (true) {
    if (tokens[slot] !== job.id) return null;
    onUpdate(job);
    if (job.final) return job;
    await sleep(job.result ? 120 : 40);
    job = await api(`/api/job/${job.id}`);
  }
}

// ------------------------------------------------------------------ tabs
function selectTab(name) {
  for (const t of ["position", "game", "play", "puzzles"]) {
    const on = t === name;
    $("tab-" + t).setAttribute("aria-selected", String(on));
    $("panel-" + t).hidden = !on;
  }
  $("analysis").hidden = name === "puzzles" || (name === "play" && !$("play-hints").checked);
}

// ------------------------------------------------------------------ the position
// current: {spec, view}: the position on the board (spec as the API takes it).
let current = null;

function seatName(v, s) {
  return s === v.seat && !v.reveal ? `you (seat ${s})` : `seat ${s}`;
}

function drawView(v, extra = "") {
  const me = v.seat;
  const others = v.hands.filter((h) => h.seat !== me);
  let html = '<div id="evalbar" class="evalbar" hidden aria-label="evaluation of the position">' +
    '<div class="track"><div class="fill"></div></div><span class="evaltext"></span></div>';
  for (const h of others) {
    const inner = h.cards ? slots(h.cards) : '<span class="back"></span>'.repeat(h.count);
    const turn = v.turn === h.seat ? " turn" : "";
    html += `<div class="seatrow big${turn}" data-seat="${h.seat}"><span class="who">` +
      `${seatName(v, h.seat)}, side ${h.side}${h.seat === v.dealer ? ", dealer" : ""}` +
      `${h.declared ? ", declared: hand shown" : ""}</span>` +
      `${inner || '<span class="empty">no cards</span>'}</div>`;
  }
  html += `<div class="tablearea big" aria-label="table"><span class="who">table</span> ${slots(v.table)}</div>`;
  const mine = v.hands[me];
  html += `<div class="seatrow big${v.turn === me ? " turn" : ""}" data-seat="${me}"><span class="who">` +
    `${seatName(v, me)}, side ${mine.side}${me === v.dealer ? ", dealer" : ""}` +
    `${mine.declared ? ", declared: hand shown" : ""}</span>${slots(mine.cards)}</div>`;
  html += '<div class="piles">';
  v.piles.forEach((p, s) => {
    const declared = v.cirulla && v.cirulla.declared[s] ? `, declared ${v.cirulla.declared[s]}` : "";
    html += `<div class="pile"><span class="who">side ${s}: ${p.length} cards, ${v.scope[s]} scop` +
      `${v.scope[s] === 1 ? "a" : "e"}${declared}</span><br>${cards(p)}</div>`;
  });
  html += "</div>";
  const turn = v.over ? "the hand is over" : `seat ${v.turn} to play`;
  html += `<div class="info">${turn}; ${v.stock} cards in the stock, ${v.plays_left} plays left; ` +
    `match points ${v.match_totals.join("-")}</div>`;
  if (v.opening) html += `<div class="info opening">opening: the dealer's side took ${cards(v.opening)}</div>`;
  if (v.voids && v.voids.length) {
    html += '<div class="info voids">void deals before this one (first tables): ' +
      v.voids.map((t) => cards(t)).join("; ") + "</div>";
  }
  if (v.score) {
    html += '<div class="info">score: ' + v.score.map((s, i) => `side ${i} ${s.total}` +
      (v.cirulla ? ` (grande ${s.grande}, piccola ${s.piccola}, declarations ${s.declarations})` : ""))
      .join(", ") + "</div>";
  }
  $("board").innerHTML = html + extra;
}

// Nothing stale: the board, its values and beliefs cleared (after an error, say).
function clearPosition(why) {
  current = null;
  $("board").innerHTML = `<p class="hint">${esc(why)}</p>`;
  $("values").innerHTML = "";
  $("values").dataset.final = "0";
  $("holdings").innerHTML = "";
  $("analyse").disabled = true;
  $("hold").disabled = true;
  $("cancel").disabled = true;
  $("progress").value = 0;
  $("an-status").textContent = "";
  tokens.analyse = null;
  tokens.holdings = null;
}

// The analysis on the cards: each card of the seat to play with the best value of its
// plays beside it, the best play's card and the cards it takes marked, and the
// evaluation bar (the best play's value, for the side to play).
function markCards(res) {
  const board = $("board");
  for (const el of board.querySelectorAll(".slot")) {
    el.classList.remove("bestcard", "bestcapture");
    el.querySelector(".val").textContent = "";
  }
  const bar = $("evalbar");
  if (!res || !res.plays || !res.plays.length) {
    if (bar) bar.hidden = true;
    return;
  }
  const row = board.querySelector(`.seatrow[data-seat="${res.seat}"]`);
  const best = {};
  for (const p of res.plays) {
    const c = parsePlay(p.play).card;
    if (p.mean_margin !== null && (best[c] === undefined || p.mean_margin > best[c])) best[c] = p.mean_margin;
  }
  if (row) {
    for (const [c, v] of Object.entries(best)) {
      const el = row.querySelector(`.slot[data-card="${c}"] .val`);
      if (el) el.textContent = num(v, 2);
    }
  }
  const top = res.plays.find((p) => p.chosen) || res.plays[0];
  const { card: c, take } = parsePlay(top.play);
  const cardEl = row && row.querySelector(`.slot[data-card="${c}"]`);
  if (cardEl) cardEl.classList.add("bestcard");
  for (const t of take) {
    const el = board.querySelector(`.tablearea .slot[data-card="${t}"]`);
    if (el) el.classList.add("bestcapture");
  }
  if (bar && top.mean_margin !== null && res.values === "hand_margin") {
    const v = top.mean_margin, side = res.seat % (current && current.view ? current.view.piles.length : 2);
    const share = Math.max(0, Math.min(1, 0.5 + v / 12));
    bar.querySelector(".fill").style.width = `${(100 * share).toFixed(1)}%`;
    bar.querySelector(".evaltext").textContent = `${num(v, 2)} for side ${side}`;
    bar.title = `expected margin of the best play (${top.play}) for side ${side}, seat ` +
      `${res.seat} to play`;
    bar.hidden = false;
  } else if (bar) {
    bar.hidden = true;
  }
}

// Put a position on the board; analyse it at once with opts.analyse.
function setPosition(spec, v, opts = {}) {
  current = { spec, view: v };
  drawView(v, opts.extra || "");
  const can = !v.over && opts.analysable !== false;
  $("analyse").disabled = !can;
  $("hold").disabled = !can;
  $("values").innerHTML = "";
  $("holdings").innerHTML = "";
  $("an-status").textContent = can ? "" : "no play to analyse here";
  tokens.analyse = null;
  tokens.holdings = null;
  $("cancel").disabled = true;
  $("progress").value = 0;
  if (can && opts.analyse) analyse();
}

async function loadPosition(spec, opts = {}) {
  return guarded(async () => {
    let v;
    try {
      v = await api("/api/position", { position: spec });
    } catch (e) {
      clearPosition("no position: it could not be read (see the message above)");
      throw e;
    }
    setPosition(spec, v, opts);
    return v;
  });
}

// ------------------------------------------------------------------ analysis
let analysisJob = null;

function drawValues(res, job) {
  if (!res) return;
  const unit = res.values === "hand_margin" ? "expected margin" : res.values.replace(/_/g, " ");
  let html = `<tr><th>play</th><th>${esc(unit)}</th><th>95% CI</th><th>n</th></tr>`;
  for (const p of res.plays) {
    const ci = p.interval === "95%" ? `[${num(p.ci_low)}, ${num(p.ci_high)}]` : esc(p.interval);
    const mark = p.chosen ? ' <span class="bestmark">\u2605 best</span>' : "";
    html += `<tr class="${p.chosen ? "best" : ""}"><td>${play(p.play)}${mark}</td>` +
      `<td class="num">${num(p.mean_margin, 3)}</td><td class="num">${ci}</td>` +
      `<td class="num">${p.n}</td></tr>`;
  }
  $("values").innerHTML = html;
  $("values").dataset.final = job.status === "done" ? "1" : "0";
  markCards(res);
}

async function analyse() {
  if (!current) return;
  await guarded(async () => {
    const body = { page: PAGE, position: current.spec, policy: $("policy").value.trim() || "eval",
      seed: Number($("seed").value) || 0 };
    $("values").innerHTML = "";
    $("values").dataset.final = "0";
    const started = performance.now();
    let job = await api("/api/analyse", body);
    analysisJob = job.id;
    $("cancel").disabled = false;
    let firstShown = null;
    job = await follow("analyse", job, (j) => {
      $("progress").value = j.progress;
      if (j.result) {
        drawValues(j.result, j);
        if (firstShown === null) {
          firstShown = (performance.now() - started) / 1000;
          $("values").dataset.firstSeconds = firstShown.toFixed(3);
        }
      }
      const what = j.status === "done" ? `final values: ${j.label.replace(/ \(stage.*/, "")}` :
        j.status === "cancelled" ? "cancelled" : j.status === "error" ? "" :
        j.result ? `values so far from ${j.label}; computing more...` : `computing ${j.label}...`;
      $("an-status").textContent = what;
      if (j.error) {
        $("values").innerHTML = "";
        markCards(null);
        throw new BoardError(j.error);
      }
    });
    if (job && job.final) $("cancel").disabled = true;
  });
}

async function cancelAnalysis() {
  if (!analysisJob) return;
  await guarded(async () => {
    const job = await api(`/api/job/${analysisJob}/cancel`, {});
    $("cancel").disabled = true;
    $("an-status").textContent = job.result ? "cancelled: the values shown are from " +
      job.label : "cancelled";
  });
}

async function holdings() {
  if (!current) return;
  await guarded(async () => {
    $("holdings").textContent = "computing...";
    let job = await api("/api/holdings", { page: PAGE, position: current.spec,
      model: $("model").value, seed: Number($("seed").value) || 0 });
    job = await follow("holdings", job, (j) => { if (j.error) throw new BoardError(j.error); });
    if (!job || !job.result) return;
    drawHoldings(job.result);
  });
}

function drawHoldings(b) {
  let html = `<p class="status">belief ${esc(b.model)} (${esc(b.method)}), from ${b.plays_seen} ` +
    `plays seen; ${b.unseen.length} unseen cards, ${b.stock} of them in the stock.</p>`;
  if (!b.seats.length) html += "<p>No other seat holds cards.</p>";
  for (const s of b.seats) {
    html += `<h3>seat ${s.seat} holds ${s.cards} card${s.cards === 1 ? "" : "s"}` +
      `${s.weighed ? "" : " (no evidence this round: every unseen card alike)"}</h3><div class="marg">`;
    const entries = Object.entries(s.marginals).sort((a, b) => b[1] - a[1]);
    for (const [c, p] of entries) {
      html += `<div>${card(c)} ${(100 * p).toFixed(0)}%<span class="bar" style="width:${Math.round(40 * p)}px"></span></div>`;
    }
    html += "</div><p>" + (s.weighed ? "most likely hands: " + s.holdings.map((h) =>
      `${cards(h.hand.split(" "))} ${(100 * h.p).toFixed(1)}%`).join("; ") :
      `every hand of ${s.cards} of the ${b.unseen.length} unseen cards is as likely as any other`) + "</p>";
  }
  $("holdings").innerHTML = html;
}

// ------------------------------------------------------------------ set up
const zones = ["hand", "table", "mine", "theirs", "seen"];

function zoneCards(z) {
  return $("f-" + z).value.replace(/,/g, " ").split(/\s+/).filter(Boolean)
    .map((c) => c.toUpperCase());
}

function syncPicker() {
  const where = {};
  for (const z of zones) for (const c of zoneCards(z)) where[c] = z;
  for (const b of $("picker").querySelectorAll("button")) {
    const z = where[b.dataset.card];
    if (z) b.dataset.zone = z; else delete b.dataset.zone;
    b.setAttribute("aria-pressed", String(Boolean(z)));
    b.setAttribute("aria-label", `${b.dataset.card}${z ? " (in " + z + ")" : ""}`);
  }
}

function buildPicker() {
  let html = "";
  for (const s of SUITS) for (const r of RANKS) {
    html += `<button type="button" class="card-btn" data-card="${r}${s}">${card(r + s)}</button>`;
  }
  $("picker").innerHTML = html;
  $("picker").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const c = b.dataset.card;
    const target = document.querySelector('input[name="zone"]:checked').value;
    const had = b.dataset.zone;
    for (const z of zones) $("f-" + z).value = zoneCards(z).filter((x) => x !== c).join(" ");
    if (had !== target) $("f-" + target).value = [...zoneCards(target), c].join(" ");
    syncPicker();
  });
  for (const z of zones) $("f-" + z).addEventListener("input", syncPicker);
}

function pairOf(id) {
  const parts = $(id).value.split(",").map((x) => x.trim());
  if (parts.length !== 2 || !parts.every((x) => /^\d+$/.test(x))) {
    throw new BoardError(`${$(id).parentElement.firstChild.textContent.trim()}: two counts like 1,0`);
  }
  return parts.map(Number);
}

async function setUp() {
  await guarded(async () => {
    const opp = $("f-opp").value.trim();
    if (opp && !/^\d+$/.test(opp)) throw new BoardError("cards in their hand: a count, or empty");
    const spec = { cards: { preset: $("preset").value, rules: $("rules").value,
      hand: $("f-hand").value, table: $("f-table").value, mine: $("f-mine").value,
      theirs: $("f-theirs").value, seen: $("f-seen").value, scope: pairOf("f-scope"),
      totals: pairOf("f-totals"), opponent_cards: opp ? Number(opp) : null } };
    let v;
    try {
      v = await api("/api/position", { position: spec });
    } catch (e) {
      clearPosition("no position: this one cannot be set up (see the message above)");
      throw e;
    }
    setPosition(spec, v, { analyse: true });
  });
}

// ------------------------------------------------------------------ records
let record = null; // {name, hands: [...]}
let hand = null; // {text, line, frames, review}
let step = 0;

function showRecord(doc) {
  record = doc;
  const sel = $("rec-hands");
  sel.innerHTML = doc.hands.map((h, i) => `<option value="${i}">line ${h.line}: match ${h.match} ` +
    `hand ${h.hand}, dealer ${h.dealer}, ${h.plays} plays</option>`).join("");
  sel.disabled = false;
  openHand(0);
}

async function openRecordPath() {
  await guarded(async () => {
    const doc = await api("/api/record/open", { path: $("rec-path").value.trim() });
    showRecord(doc);
  });
}

async function uploadRecord() {
  const f = $("rec-file").files[0];
  if (!f) return;
  await guarded(async () => {
    const doc = await api(`/api/record/upload?name=${encodeURIComponent(f.name)}`, f, true);
    showRecord(doc);
  });
}

async function openHand(i, text, name, line) {
  await guarded(async () => {
    const h = text ? { text, line: line || 1 } : record.hands[i];
    const doc = await api("/api/record/frames", { text: h.text });
    hand = { text: h.text, line: h.line, name: name || (record ? record.name : "board"),
      frames: doc.frames, review: null };
    $("stepper").hidden = false;
    $("decisions").innerHTML = "";
    $("curve").innerHTML = "";
    goto(0);
    reviewHand();
  });
}

function decisionAt(k) {
  return hand && hand.review ? hand.review.decisions.find((d) => d.play === k) : null;
}

function goto(k) {
  if (!hand) return;
  const n = hand.frames.length - 1;
  step = Math.max(0, Math.min(n, k));
  const f = hand.frames[step];
  const spec = { record: { text: hand.text, play: step, reveal: true } };
  setPosition(spec, f, { analyse: false });
  $("step-label").textContent = `position ${step} of ${n}` + (step === n ? " (end)" : "");
  let next = step < n ? `next: seat ${f.turn} plays ${play(f.next)}` : "the hand is over";
  const d = decisionAt(step);
  if (d) {
    next += d.forced ? " (forced)" : ` &nbsp;value ${num(d.chosen_value)}` +
      (d.best === d.chosen ? ' <span class="bestmark">\u2605 best</span>' :
        `; best ${play(d.best)} ${num(d.best_value)}, loss ${num(d.loss, 2, false)} ${label(d.label)}`);
  }
  $("step-play").innerHTML = next;
  for (const row of $("decisions").querySelectorAll("tr[data-play]")) {
    const here = Number(row.dataset.play) === step;
    row.classList.toggle("current", here);
    if (here) { // keep the row in view inside its box (not by scrolling the page)
      const box = row.closest(".scroll");
      if (row.offsetTop < box.scrollTop || row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight) {
        box.scrollTop = row.offsetTop - box.clientHeight / 2;
      }
    }
  }
  $("step-prev").disabled = step === 0;
  $("step-first").disabled = step === 0;
  $("step-next").disabled = step === n;
  $("step-last").disabled = step === n;
}

async function reviewHand() {
  const h = hand;
  await guarded(async () => {
    $("review-status").textContent = "reviewing the hand (every play valued by the evaluator)...";
    let job = await api("/api/review", { page: PAGE, text: h.text, name: h.name, line: h.line,
      seed: 0 });
    job = await follow("review", job, (j) => { if (j.error) throw new BoardError(j.error); });
    if (!job || !job.result || hand !== h) return;
    h.review = job.result;
    drawReview(h.review);
    goto(step);
  });
}

function drawReview(r) {
  const hr = r.hands[0];
  const res = hr.result.map((x, s) => `side ${s} ${num(x, 0)} = luck ${num(hr.luck[s])} + skill ` +
    `${num(hr.skill[s])}`).join("; ");
  $("review-status").innerHTML = `review (${esc(r.evaluator)}, seed ${r.seed}): ${esc(res)}`;
  $("curve").innerHTML = r.plot;
  let html = "<tr><th>play #</th><th>chosen (value)</th><th>best (value)</th>" +
    "<th>loss (95% CI)</th><th>label</th></tr>";
  for (const d of r.decisions) {
    const ci = "<br><small>" + (d.interval === "95%" ? `[${num(d.loss_ci[0])}, ` +
      `${num(d.loss_ci[1])}]` : esc(d.interval)) + "</small>";
    html += `<tr class="clickable" data-play="${d.play}" tabindex="0"><td class="num">${d.play}` +
      `<br><small>seat ${d.seat}</small></td><td>${play(d.chosen)} ${num(d.chosen_value)}</td>` +
      `<td>${d.best === d.chosen ? "same" : play(d.best) + " " + num(d.best_value)}</td>` +
      `<td class="num">${d.forced ? "forced" : num(d.loss, 2, false) + ci}</td><td>${label(d.label)}</td></tr>`;
  }
  $("decisions").innerHTML = html;
}

// ------------------------------------------------------------------ play
let game = null;
let gameDoc = null;

function legalButtons(el, legal, onPick) {
  el.innerHTML = legal.map((p, i) => `<button type="button" data-i="${i}">` +
    `${i < 9 ? `<kbd>${i + 1}</kbd>` : ""}${play(p)}</button>`).join("");
  el.onclick = (e) => {
    const b = e.target.closest("button");
    if (b) onPick(legal[Number(b.dataset.i)]);
  };
}

async function startGame(next) {
  await guarded(async () => {
    let doc;
    if (next) {
      const g = { ...game, ...next, plays: [] };
      doc = await api("/api/play/state", { game: g });
    } else {
      doc = await api("/api/play/new", { preset: $("play-preset").value, rules: $("play-rules").value,
        policy: $("play-policy").value.trim() || "greedy", seed: Number($("play-seed").value) || 0,
        match: $("play-match").checked });
      $("play-log").innerHTML = "";
    }
    $("play-area").hidden = false;
    await showGame(doc);
  });
}

async function showGame(doc) {
  game = doc.game;
  gameDoc = doc;
  const v = doc.view;
  setPosition({ game }, v, { analyse: !doc.bot_to_play && $("play-hints").checked,
    analysable: !doc.bot_to_play });
  $("play-end").hidden = !v.over;
  if (v.over) {
    $("play-legal").innerHTML = "";
    const after = doc.totals_after.join("-");
    $("play-status").textContent = "the hand is over";
    $("play-score").innerHTML = "<p>" + v.score.map((s, i) => `side ${i}: ${s.total} points`).join(", ") +
      `; match ${after}${doc.winner !== null && doc.winner !== undefined ? `, side ${doc.winner} wins the match` : ""}</p>`;
    $("play-next").hidden = !(game.match && doc.next_hand);
    $("play-review").focus();
    return;
  }
  if (doc.bot_to_play) {
    $("play-legal").innerHTML = "";
    $("play-status").textContent = `${game.policy} (seat ${v.turn}) is thinking...`;
    let job = await api("/api/play/bot", { page: PAGE, game });
    job = await follow("bot", job, (j) => { if (j.error) throw new BoardError(j.error); });
    if (!job || !job.result) return;
    logPlay(v.turn, job.result);
    const after = await api("/api/play/state", { game: { ...game, plays: [...game.plays, job.result] } });
    return showGame(after);
  }
  $("play-status").textContent = "your turn: pick a play (keys 1-9 pick the first nine)";
  legalButtons($("play-legal"), v.legal, (p) => humanPlay(p));
  const first = $("play-legal").querySelector("button");
  if (first) first.focus();
}

function logPlay(seat, p) {
  const li = document.createElement("li");
  li.innerHTML = `seat ${seat}${seat === game.human ? " (you)" : ""}: ${play(p)}`;
  $("play-log").appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

async function humanPlay(p) {
  await guarded(async () => {
    $("play-legal").innerHTML = "";
    const doc = await api("/api/play/state", { game: { ...game, plays: [...game.plays, p] } });
    logPlay(game.human, p);
    await showGame(doc);
  });
}

function reviewPlayed() {
  if (!gameDoc || !gameDoc.record) return;
  record = null;
  $("rec-hands").innerHTML = "<option>the hand you just played</option>";
  $("rec-hands").disabled = true;
  selectTab("game");
  openHand(0, gameDoc.record, "played on the board", game.hand_no + 1);
}

// ------------------------------------------------------------------ puzzles
let puzzles = [];
let pz = 0;
let pzJob = null;

async function buildPuzzles() {
  await guarded(async () => {
    puzzles = [];
    $("pz-area").hidden = true;
    $("pz-progress").hidden = false;
    $("pz-status").textContent = "reviewing the hands...";
    let job = await api("/api/puzzles", { page: PAGE, folder: $("pz-folder").value.trim(),
      limit: Number($("pz-limit").value) || 20 });
    pzJob = job.id;
    $("pz-cancel").disabled = false;
    job = await follow("puzzles", job, (j) => {
      $("pz-progress").value = j.progress;
      const found = (j.result || []).length;
      $("pz-status").textContent = j.final ? "" :
        `${j.label} (${j.stage + 1} of ${j.stages}); ${found} puzzle${found === 1 ? "" : "s"} so far`;
      if (j.error) throw new BoardError(j.error);
    });
    $("pz-cancel").disabled = true;
    $("pz-progress").hidden = true;
    if (!job) return;
    puzzles = job.result || [];
    const hands = job.status === "done" ? job.stages : job.stage;
    $("pz-status").textContent = `${puzzles.length} puzzle${puzzles.length === 1 ? "" : "s"} from ` +
      `the mistakes and blunders of ${hands} hand${hands === 1 ? "" : "s"}` +
      (job.status === "cancelled" ? " (cancelled)" : "");
    if (puzzles.length) showPuzzle(0);
  });
}

async function showPuzzle(i) {
  pz = Math.max(0, Math.min(puzzles.length - 1, i));
  const p = puzzles[pz];
  $("pz-area").hidden = false;
  $("pz-answer").innerHTML = "";
  $("pz-title").innerHTML = `Puzzle ${pz + 1} of ${puzzles.length}: you are seat ${p.seat}; ` +
    `find the best play. <span class="status">(${esc(p.file)} line ${p.line}, play ${p.play})</span>`;
  const v = await loadPosition({ record: { text: p.text, play: p.play, reveal: false } },
    { analysable: false });
  if (!v) return;
  legalButtons($("pz-legal"), v.legal, (choice) => answerPuzzle(choice));
  $("pz-prev").disabled = pz === 0;
  $("pz-next").disabled = pz === puzzles.length - 1;
  const first = $("pz-legal").querySelector("button");
  if (first) first.focus();
}

function answerPuzzle(choice) {
  const p = puzzles[pz];
  const best = p.values.find((x) => x.best);
  const mine = p.values.find((x) => x.play === choice);
  const lost = best.mean_margin - mine.mean_margin;
  let html = choice === best.play ? '<p class="good">Best play!</p>' :
    `<p class="bad">Not the best: ${num(lost, 2, false)} points below ${play(best.play)}.</p>`;
  html += `<p>In the game seat ${p.seat} played ${play(p.chosen)} ${label(p.label)}, losing ` +
    `${num(p.loss, 2, false)} points [${num(p.loss_ci[0])}, ${num(p.loss_ci[1])}].</p>`;
  html += '<table class="values"><tr><th>play</th><th>expected margin</th><th>95% CI</th><th></th></tr>';
  for (const x of p.values) {
    const marks = [x.best ? '<span class="bestmark">\u2605 best</span>' : "",
      x.play === p.chosen ? "played in the game" : "", x.play === choice ? "your answer" : ""]
      .filter(Boolean).join(", ");
    html += `<tr class="${x.best ? "best" : ""}"><td>${play(x.play)}</td><td class="num">${num(x.mean_margin, 3)}</td>` +
      `<td class="num">${x.ci_low === null ? "-" : `[${num(x.ci_low)}, ${num(x.ci_high)}]`}</td><td>${marks}</td></tr>`;
  }
  $("pz-answer").innerHTML = html + "</table>";
  for (const b of $("pz-legal").querySelectorAll("button")) b.disabled = true;
  $("pz-next").focus();
}

// ------------------------------------------------------------------ keyboard
function typing(e) {
  const t = e.target;
  return t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("cancel").disabled) { cancelAnalysis(); return; }
  if (typing(e) || e.altKey || e.ctrlKey || e.metaKey) return;
  const tab = ["position", "game", "play", "puzzles"].find((t) => !$("panel-" + t).hidden);
  if (tab === "game" && hand) {
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: hand.frames.length };
    if (e.key in moves) { e.preventDefault(); goto(moves[e.key]); }
  }
  const digit = /^[1-9]$/.test(e.key) ? Number(e.key) - 1 : -1;
  if (digit >= 0) {
    const area = tab === "play" ? $("play-legal") : tab === "puzzles" ? $("pz-legal") : null;
    const b = area && area.querySelectorAll("button")[digit];
    if (b && !b.disabled) { e.preventDefault(); b.click(); }
  }
});

// ------------------------------------------------------------------ start
async function init() {
  META = await api("/api/meta");
  const presets = Object.entries(META.presets).map(([k, d]) =>
    `<option value="${esc(k)}" title="${esc(d)}">${esc(k)}</option>`).join("");
  $("preset").innerHTML = presets;
  $("play-preset").innerHTML = presets;
  $("model").innerHTML = META.beliefs.map((b) => `<option${b === "fit" ? " selected" : ""}>${esc(b)}</option>`).join("");
  $("policy-names").innerHTML = [...Object.keys(META.policies), "eval:worlds=1024",
    "ismcts:iterations=20000", "pimc:worlds=32"].map((p) => `<option value="${esc(p)}">`).join("");
  const L = META.limits;
  $("limits").textContent = `On this board a search takes at most ${L.worlds.toLocaleString("en")} ` +
    `worlds, ${L.iterations.toLocaleString("en")} iterations or ${L.ms.toLocaleString("en")} ms; ` +
    `a job stops after ${L.job_seconds} s (the command line takes more).`;
  buildPicker();
  for (const t of ["position", "game", "play", "puzzles"]) {
    $("tab-" + t).addEventListener("click", () => selectTab(t));
  }
  $("set-position").addEventListener("click", setUp);
  $("clear-position").addEventListener("click", () => {
    for (const z of zones) $("f-" + z).value = "";
    syncPicker();
  });
  $("load-advise").addEventListener("click", () =>
    loadPosition({ advise: $("f-advise").value.trim() }, { analyse: true }));
  $("analyse").addEventListener("click", analyse);
  $("cancel").addEventListener("click", cancelAnalysis);
  $("hold").addEventListener("click", holdings);
  $("rec-open").addEventListener("click", openRecordPath);
  $("rec-file").addEventListener("change", uploadRecord);
  $("rec-hands").addEventListener("change", () => openHand(Number($("rec-hands").value)));
  $("step-first").addEventListener("click", () => goto(0));
  $("step-prev").addEventListener("click", () => goto(step - 1));
  $("step-next").addEventListener("click", () => goto(step + 1));
  $("step-last").addEventListener("click", () => goto(hand.frames.length));
  $("step-analyse").addEventListener("click", analyse);
  $("decisions").addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-play]");
    if (row) goto(Number(row.dataset.play));
  });
  $("decisions").addEventListener("keydown", (e) => {
    const row = e.target.closest("tr[data-play]");
    if (row && e.key === "Enter") goto(Number(row.dataset.play));
  });
  $("play-start").addEventListener("click", () => startGame(null));
  $("play-next").addEventListener("click", () => startGame(gameDoc.next_hand));
  $("play-review").addEventListener("click", reviewPlayed);
  $("play-hints").addEventListener("change", () => {
    $("analysis").hidden = !$("play-hints").checked;
    if ($("play-hints").checked && gameDoc && !gameDoc.bot_to_play && !gameDoc.view.over) analyse();
  });
  $("pz-build").addEventListener("click", buildPuzzles);
  $("pz-cancel").addEventListener("click", () => pzJob && guarded(() => api(`/api/job/${pzJob}/cancel`, {})));
  $("pz-prev").addEventListener("click", () => showPuzzle(pz - 1));
  $("pz-next").addEventListener("click", () => showPuzzle(pz + 1));
  document.body.dataset.ready = "1";
}

guarded(init);
