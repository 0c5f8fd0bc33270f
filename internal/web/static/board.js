// The board app: /board on any screen's browser. Unpaired, it asks for the 6-character code an
// admin minted and claims it (POST /v1/devices/pair); the device token it receives stays in
// localStorage. Paired, it renders GET /v1/device/state by the device's kind, polling with
// If-None-Match and refetching on every WebSocket frame (frames carry no data). It keeps the last
// state on screen through any outage, shows an offline banner once no poll has succeeded for
// 40 s, and goes back to pairing when the token is refused (the device was revoked). A socket
// replaced by a newer one of the same token (close code 4001) is retried only after 10 minutes,
// so screens sharing a token do not take turns closing each other's sockets.
const API = "/v1";
const KEY = "sous.deviceToken";
const POLL_MS = 10000;
const OFFLINE_MS = 40000;
// The server closes a socket with 4001 when a newer connection of the same device replaced it.
const REPLACED = 4001;
const REPLACED_RETRY_MS = 10 * 60 * 1000;
const $ = (id) => document.getElementById(id);

let token = localStorage.getItem(KEY);
let etag = null;
let state = null;
let lastOk = Date.now();
let skew = 0; // server clock minus this screen's clock, from serverTime
let socket = null;
let backoff = 1000;
let pollTimer = null;
let reconnectTimer = null;
let generation = 0; // bumps on unpair, so a stale loop stops
let castImageKey = null;
let castImageURL = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

// --- pairing

function showPairing(message) {
  generation++;
  clearTimeout(pollTimer);
  clearTimeout(reconnectTimer);
  if (socket) {
    socket.onclose = null;
    socket.close();
    socket = null;
  }
  state = null;
  etag = null;
  $("screen").hidden = true;
  $("offline").hidden = true;
  $("pairing").hidden = false;
  const err = $("pair-error");
  err.hidden = !message;
  err.textContent = message || "";
  $("code").focus();
}

// normalize ignores case, spaces and dashes, as the API does.
const normalize = (s) => s.replace(/[\s-]/g, "").toUpperCase();

$("pairing").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const code = normalize($("code").value);
  if (code.length !== 6) return showPairing("The code has 6 characters.");
  const button = $("pairing").querySelector("button");
  button.disabled = true;
  try {
    const res = await fetch(API + "/devices/pair", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ code }),
    });
    if (res.status === 200) {
      token = (await res.json()).deviceToken;
      localStorage.setItem(KEY, token);
      $("code").value = "";
      return start();
    }
    if (res.status === 402) return showPairing("The organization's plan allows no more screens.");
    if (res.status === 429) return showPairing("Too many attempts. Wait a minute, then try again.");
    showPairing("That code is not valid or has expired. Ask for a new one.");
  } catch {
    showPairing("No connection. Check the network, then try again.");
  } finally {
    button.disabled = false;
  }
});

// --- state

function start() {
  generation++;
  $("pairing").hidden = true;
  lastOk = Date.now();
  connect(generation);
  poll(generation);
}

async function poll(gen) {
  if (gen !== generation) return;
  clearTimeout(pollTimer);
  try {
    const headers = { "x-device-token": token, accept: "application/json" };
    if (etag) headers["if-none-match"] = etag;
    const res = await fetch(API + "/device/state", { headers, cache: "no-store" });
    if (gen !== generation) return;
    if (res.status === 401) {
      localStorage.removeItem(KEY);
      token = null;
      return showPairing("This screen was unpaired. Enter a new code to pair it again.");
    }
    if (res.status === 200) {
      etag = res.headers.get("etag");
      state = await res.json();
      skew = Date.parse(state.serverTime) - Date.now();
      ok();
      render();
    } else if (res.status === 304) {
      ok();
    }
  } catch {
    // Keep the last state; the banner appears once polls have failed for 40 s.
  }
  if (gen === generation) {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(() => poll(gen), POLL_MS);
  }
}

function ok() {
  lastOk = Date.now();
  $("offline").hidden = true;
}

function connect(gen) {
  if (gen !== generation || !token) return;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(scheme + location.host + API + "/board/ws?token=" + encodeURIComponent(token));
  socket = ws;
  ws.onopen = () => {
    backoff = 1000;
    poll(gen); // catch up on anything missed while disconnected
  };
  ws.onmessage = () => poll(gen);
  ws.onclose = (ev) => {
    if (gen !== generation) return;
    socket = null;
    if (ev.code === REPLACED) {
      // Another screen with this token holds its place: reconnecting now would only close that
      // one in turn. Poll meanwhile, and try again much later, in case that screen has gone.
      reconnectTimer = setTimeout(() => connect(gen), REPLACED_RETRY_MS);
    } else {
      reconnectTimer = setTimeout(() => connect(gen), backoff);
      backoff = Math.min(backoff * 2, 30000);
    }
    poll(gen);
  };
}

setInterval(() => {
  if (token && state !== null && Date.now() - lastOk > OFFLINE_MS) $("offline").hidden = false;
  tick();
}, 1000);

// --- rendering

const serverNow = () => Date.now() + skew;

function elapsed(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n) => String(n).padStart(2, "0");
  return (h ? h + ":" + pad(m) : String(m)) + ":" + pad(s % 60);
}

// tick updates every timer from the server's clock, between polls.
function tick() {
  for (const t of document.querySelectorAll("[data-since]")) t.textContent = elapsed(serverNow() - Date.parse(t.dataset.since));
  for (const t of document.querySelectorAll("[data-deadline]")) {
    const left = Date.parse(t.dataset.deadline) - serverNow();
    t.textContent = left > 0 ? elapsed(left) + " left" : "discard — over hold time";
    t.classList.toggle("late", left <= 0);
  }
  if (state) {
    const tz = state.site && state.site.timezone;
    try {
      $("board-clock").textContent = new Date(serverNow()).toLocaleTimeString("en-US", { timeZone: tz, hour: "numeric", minute: "2-digit" });
    } catch {
      $("board-clock").textContent = "";
    }
  }
}

function brand(org) {
  const root = document.documentElement.style;
  const hex = /^#[0-9a-fA-F]{6}$/;
  if (org && org.brand) {
    if (hex.test(org.brand.primary)) root.setProperty("--brand", org.brand.primary);
    if (hex.test(org.brand.accent)) root.setProperty("--accent", org.brand.accent);
    root.setProperty("--on-brand", contrast(org.brand.primary));
    root.setProperty("--on-accent", contrast(org.brand.accent));
  }
  const name = document.querySelector(".brand-name");
  if (name && org) name.textContent = org.name;
}

function contrast(hex) {
  if (!/^#[0-9a-fA-F]{6}$/.test(hex || "")) return "#ffffff";
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? "#ffffff" : "#000000";
}

function section(title, cls) {
  const s = el("section", "panel " + (cls || ""));
  s.append(el("h2", null, title));
  return s;
}

function render() {
  if (!state) return;
  brand(state.org);
  $("screen").hidden = false;
  $("board-title").textContent = state.device.name + " · " + state.site.name;
  document.title = state.device.name + " · Board";
  document.body.dataset.kind = state.device.kind;
  const content = $("content");
  content.replaceChildren();
  switch (state.device.kind) {
    case "wallboard_boh":
    case "wallboard_foh":
      content.append(production(state.production || []));
      if ((state.alerts || []).length) content.append(alerts(state.alerts));
      if ((state.handoffs || []).length) content.append(handoffs(state.handoffs));
      break;
    case "menu_board":
      content.append(menu(state.menu));
      break;
    case "tray_line":
      content.append(trays(state.trays || []));
      break;
    default:
      content.append(el("p", "muted", "This screen has nothing to show for its kind."));
  }
  cast(state.cast);
  tick();
}

const statusLabels = { prepped: "Prepped", in_progress: "In progress", holding: "Holding", planned: "Planned", done: "Done" };

function production(runs) {
  const s = section("Production", "production");
  if (!runs.length) {
    s.append(el("p", "muted", "No production running."));
    return s;
  }
  const ul = el("ul", "timers");
  for (const r of runs) {
    const li = el("li", "timer status-" + r.status);
    li.append(el("strong", "recipe", r.recipe));
    li.append(el("span", "qty", r.quantity + " " + r.unit + (r.portions ? " · " + r.portions + " portions" : "")));
    if (r.station) li.append(el("span", "station", r.station));
    li.append(el("span", "run-status", statusLabels[r.status] || r.status));
    const since = el("span", "elapsed");
    since.dataset.since = r.since;
    li.append(since);
    if (r.holdDeadline) {
      const d = el("span", "deadline");
      d.dataset.deadline = r.holdDeadline;
      li.append(d);
    }
    ul.append(li);
  }
  s.append(ul);
  return s;
}

function alerts(list) {
  const s = section("Alerts", "alerts");
  const ul = el("ul");
  for (const a of list) ul.append(el("li", "alert severity-" + a.severity, a.message));
  s.append(ul);
  return s;
}

function handoffs(list) {
  const s = section("Handoffs", "handoffs");
  const ul = el("ul");
  for (const h of list) ul.append(el("li", null, h.recipe + " → " + h.station + (h.from ? " (from " + h.from + ")" : "") + (h.note ? ": " + h.note : "")));
  s.append(ul);
  return s;
}

const money = (cents) => "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

function menu(m) {
  let title = m && m.dayPart && m.dayPart.name ? m.dayPart.name[0].toUpperCase() + m.dayPart.name.slice(1) : "Menu";
  if (m && m.dayPart && !m.inProgress) title += " (next)";
  const s = section(title, "menu");
  const items = (m && m.items) || [];
  if (!items.length) {
    s.append(el("p", "muted", "No menu for now."));
    return s;
  }
  const ul = el("ul", "menu-items");
  for (const it of items) {
    const li = el("li", "menu-item");
    li.append(el("strong", "dish", it.name));
    if (typeof it.priceCents === "number") li.append(el("span", "price", money(it.priceCents)));
    const contains = it.contains || [];
    const may = it.mayContain || [];
    if (contains.length) li.append(el("span", "allergens", "Contains: " + contains.join(", ")));
    if (may.length) li.append(el("span", "allergens may", "May contain: " + may.join(", ")));
    ul.append(li);
  }
  s.append(ul);
  return s;
}

function trays(list) {
  const s = section("Tray line", "trays");
  if (!list.length) {
    s.append(el("p", "muted", "No trays in the queue."));
    return s;
  }
  const table = el("table", "tray-table");
  const head = el("tr");
  for (const h of ["Where", "Diet", "Allergens", "Items", "Status"]) {
    const th = el("th", null, h);
    th.scope = "col";
    head.append(th);
  }
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  for (const t of list) {
    const tr = el("tr", t.conflict ? "conflict" : null);
    tr.append(el("td", null, t.unit + " " + t.room + (t.bed ? "-" + t.bed : "")));
    tr.append(el("td", null, (t.diets || []).map((d) => d.name || d.code).join(", ") + (t.texture ? " · IDDSI " + t.texture : "")));
    tr.append(el("td", "allergens", (t.allergens || []).join(", ")));
    const items = el("td");
    for (const i of t.items || []) {
      const flag = i.check && i.check !== "ok" ? " ⚠ " + i.check + ((i.reasons || []).length ? ": " + i.reasons.join("; ") : "") : "";
      items.append(el("div", flag ? "flagged" : null, i.name + flag));
    }
    tr.append(items);
    tr.append(el("td", null, (t.conflict ? "Check! " : "") + t.status));
    body.append(tr);
  }
  table.append(body);
  s.append(table);
  return s;
}

function cast(c) {
  const box = $("cast");
  box.hidden = !c;
  if (!c) return;
  $("cast-title").textContent = c.title || (c.recipe && c.recipe.name) || c.caption || "";
  $("cast-title").hidden = !$("cast-title").textContent;
  $("cast-text").textContent = c.text || "";
  $("cast-text").hidden = !c.text;
  const img = $("cast-image");
  img.hidden = c.type !== "image";
  if (c.type === "image" && c.mediaUrl && c.mediaKey !== castImageKey) loadImage(c, img);
  const recipe = $("cast-recipe");
  recipe.hidden = c.type !== "recipe";
  recipe.replaceChildren();
  if (c.type === "recipe" && c.recipe) {
    const r = c.recipe;
    const ing = el("ul", "ingredients");
    for (const i of r.ingredients || []) ing.append(el("li", null, i.display || i.quantity + " " + i.unit + " " + i.name));
    const steps = el("ol", "steps");
    for (const st of r.steps || []) steps.append(el("li", null, typeof st === "string" ? st : st.text || ""));
    recipe.append(ing, steps);
    if ((r.contains || []).length) recipe.append(el("p", "allergens", "Contains: " + r.contains.join(", ")));
  }
}

// loadImage fetches a board image with the device token (an <img> cannot send the header) and
// shows it from a blob.
async function loadImage(c, img) {
  castImageKey = c.mediaKey;
  try {
    const res = await fetch(c.mediaUrl, { headers: { "x-device-token": token } });
    if (!res.ok) return;
    const url = URL.createObjectURL(await res.blob());
    if (castImageURL) URL.revokeObjectURL(castImageURL);
    castImageURL = url;
    img.src = url;
    img.alt = c.caption || "Image shown on this screen";
  } catch {
    castImageKey = null; // retry on the next state
  }
}

if (token) start();
else showPairing();
