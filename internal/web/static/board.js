// The board app: /board on any screen's browser. Unpaired, it asks for the 6-character code an
// admin minted and claims it (POST /v1/devices/pair); the device token it receives stays in
// localStorage. Paired, it renders GET /v1/device/state by the device's kind, polling with
// If-None-Match and refetching on every WebSocket frame (frames carry no data). It keeps the last
// state on screen through any outage, shows an offline banner once no poll has succeeded for
// 40 s, and goes back to pairing when the token is refused (the device was revoked). A socket
// replaced by a newer one of the same token (close code 4001) is retried only after 10 minutes,
// so screens sharing a token do not take turns closing each other's sockets.
//
// Every string it shows comes from the message catalog (English and Spanish): the language is the
// one kept on this screen by the toggle, else the browser's, and a toggle re-renders in place.
// The device's `theme` (config.theme, dark by default) colours the screen once paired. A kitchen
// wallboard also shows the site's live temperatures, and its alerts one line per subject.
const { t, locale, onLangChange } = window.i18n;
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

// showPairing shows the pairing form with an error (a catalog key), kept so a change of
// language translates it too.
let pairError = null;

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
  document.documentElement.removeAttribute("data-theme");
  document.title = t("board.page_title");
  $("screen").hidden = true;
  $("offline").hidden = true;
  $("pairing").hidden = false;
  pairError = message || null;
  const err = $("pair-error");
  err.hidden = !message;
  err.textContent = message ? t(message) : "";
  $("code").focus();
}

// normalize ignores case, spaces and dashes, as the API does.
const normalize = (s) => s.replace(/[\s-]/g, "").toUpperCase();

$("pairing").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const code = normalize($("code").value);
  if (code.length !== 6) return showPairing("board.pair_err_length");
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
    if (res.status === 402) return showPairing("board.pair_err_plan");
    if (res.status === 429) return showPairing("board.pair_err_rate");
    showPairing("board.pair_err_invalid");
  } catch {
    showPairing("board.pair_err_network");
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
      return showPairing("board.unpaired");
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
  for (const s of document.querySelectorAll("[data-since]")) s.textContent = elapsed(serverNow() - Date.parse(s.dataset.since));
  for (const a of document.querySelectorAll("[data-read]")) a.textContent = age(a.dataset.read);
  for (const d of document.querySelectorAll("[data-deadline]")) {
    const left = Date.parse(d.dataset.deadline) - serverNow();
    d.textContent = left > 0 ? t("board.time_left", { time: elapsed(left) }) : t("board.over_hold");
    d.classList.toggle("late", left <= 0);
  }
  if (state) $("board-clock").textContent = clock(serverNow());
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

// theme applies the device's colour scheme: dark unless its config says light.
function theme(device) {
  const th = device && device.config && device.config.theme === "light" ? "light" : "dark";
  document.documentElement.dataset.theme = th;
}

function render() {
  if (!state) return;
  theme(state.device);
  brand(state.org);
  $("screen").hidden = false;
  $("board-title").textContent = state.device.name + " · " + state.site.name;
  document.title = t("board.doc_title", { device: state.device.name });
  document.body.dataset.kind = state.device.kind;
  const content = $("content");
  content.replaceChildren();
  switch (state.device.kind) {
    case "wallboard_boh":
    case "wallboard_foh":
      content.append(production(state.production || []));
      if ((state.alerts || []).length) content.append(alerts(state.alerts));
      if ((state.temperatures || []).length) content.append(temperatures(state.temperatures));
      if ((state.handoffs || []).length) content.append(handoffs(state.handoffs));
      break;
    case "menu_board":
      content.append(menu(state.menu));
      break;
    case "tray_line":
      content.append(trays(state.trays || []));
      break;
    default:
      content.append(el("p", "muted", t("board.nothing_for_kind")));
  }
  cast(state.cast);
  tick();
}

const runStatuses = ["prepped", "in_progress", "holding", "planned", "done"];
const trayStatuses = ["queued", "assembled", "checked", "delivered", "cancelled"];
const itemChecks = ["conflict", "substituted", "refused", "unknown"];
const known = (list, v, prefix) => (list.includes(v) ? t(prefix + v) : v);

const num = (v) => {
  const n = Number(v);
  return Number.isFinite(n) ? n.toLocaleString(locale(), { maximumFractionDigits: 3 }) : String(v);
};
const listOf = (xs) => xs.join(", ");

function production(runs) {
  const s = section(t("board.production"), "production");
  if (!runs.length) {
    s.append(el("p", "muted", t("board.no_production")));
    return s;
  }
  const ul = el("ul", "timers");
  for (const r of runs) {
    const li = el("li", "timer status-" + r.status);
    li.append(el("strong", "recipe", r.recipe));
    const portions = r.portions ? " · " + t(Number(r.portions) === 1 ? "board.portions_one" : "board.portions_other", { n: num(r.portions) }) : "";
    li.append(el("span", "qty", num(r.quantity) + " " + r.unit + portions));
    if (r.station) li.append(el("span", "station", r.station));
    li.append(el("span", "run-status", known(runStatuses, r.status, "board.status_")));
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

// ALERT_KINDS names each kind of alert in the catalog; a kind a newer server adds shows its
// message alone.
const ALERT_KINDS = {
  temperature_excursion: "board.alert_kind_temperature_excursion",
  door_open: "board.alert_kind_door_open",
  sensor_offline: "board.alert_kind_sensor_offline",
  sensor_fault: "board.alert_kind_sensor_fault",
  task_missed: "board.alert_kind_task_missed",
  nutrition_risk: "board.alert_kind_nutrition_risk",
  tray_late: "board.alert_kind_tray_late",
  certification_lapse: "board.alert_kind_certification_lapse",
  lot_expiring: "board.alert_kind_lot_expiring",
};

// alerts shows each subject once: the open alerts about one thing (a probe out of range and
// reading the impossible, say) are one line, with how many alerts it has. An alert without a
// subject (an older server) is its own line unless its kind and message repeat. The list comes
// most severe first, so a line shows the most severe of its alerts.
function alerts(list) {
  const s = section(t("board.alerts"), "alerts");
  const ul = el("ul");
  const lines = new Map();
  for (const a of list) {
    const key = a.subject && a.subject.id ? a.subject.type + "\u0000" + a.subject.id : a.kind + "\u0000" + a.message;
    const line = lines.get(key);
    if (line) line.count++;
    else lines.set(key, { alert: a, count: 1 });
  }
  for (const { alert: a, count } of lines.values()) {
    const li = el("li", "alert severity-" + a.severity);
    // The kind in the screen's language heads the line; the message under it is the server's
    // own text (with its readings), which is written in English.
    if (ALERT_KINDS[a.kind]) li.append(el("strong", "alert-kind", t(ALERT_KINDS[a.kind])));
    li.append(el("span", "alert-message", a.message));
    if (count > 1) li.append(el("span", "alert-count", t("board.alert_count", { n: num(count) })));
    ul.append(li);
  }
  s.append(ul);
  return s;
}

// temperatures shows each probe of the site with its latest reading, when it was read (the age
// kept current by tick) and whether it is in range. Out of range is said in words with a mark,
// not by colour alone, and the line stands out by its frame as well.
function temperatures(list) {
  const s = section(t("board.temperatures"), "temperatures");
  const ul = el("ul", "temps");
  for (const r of list) {
    const out = r.inRange === false;
    const li = el("li", "temp" + (out ? " out" : r.inRange === true ? " in" : ""));
    li.dataset.sensor = r.sensorId;
    const where = el("div", "temp-where");
    where.append(el("strong", "temp-place", r.location || r.sensor));
    if (r.location) where.append(el("span", "temp-sensor", r.sensor));
    li.append(where);
    if (r.valueF === null || r.valueF === undefined) {
      li.append(el("span", "temp-none", t("board.temp_no_reading")));
    } else {
      li.append(el("span", "temp-value", t("board.temp_value", { value: num(r.valueF) })));
      // The mark is said by the words beside it, so a screen reader reads the words alone.
      const status = el("span", "temp-status");
      const mark = el("span", "temp-mark", out ? "⚠" : r.inRange === true ? "✓" : "");
      mark.setAttribute("aria-hidden", "true");
      status.append(mark, el("span", "temp-state", t(out ? "board.temp_out_of_range" : r.inRange === true ? "board.temp_in_range" : "board.temp_no_range")));
      li.append(status);
      const when = el("span", "temp-when");
      when.append(el("span", "temp-at", t("board.temp_at", { time: clock(r.at) })), " · ");
      const age = el("span", "temp-age");
      age.dataset.read = r.at;
      when.append(age);
      li.append(when);
    }
    const range = rangeText(r.minTempF, r.maxTempF);
    if (range) li.append(el("span", "temp-range", range));
    if (r.excursion) li.append(el("span", "temp-excursion", t("board.temp_excursion")));
    ul.append(li);
  }
  s.append(ul);
  return s;
}

function rangeText(min, max) {
  const has = (v) => v !== null && v !== undefined && v !== "";
  if (has(min) && has(max)) return t("board.temp_range", { min: num(min), max: num(max) });
  if (has(min)) return t("board.temp_range_min", { min: num(min) });
  if (has(max)) return t("board.temp_range_max", { max: num(max) });
  return "";
}

// clock is an instant as the site's local time of day.
function clock(at) {
  const tz = state && state.site && state.site.timezone;
  try {
    return new Date(at).toLocaleTimeString(locale(), { timeZone: tz, hour: "numeric", minute: "2-digit" });
  } catch {
    return new Date(at).toLocaleTimeString(locale(), { hour: "numeric", minute: "2-digit" });
  }
}

function age(at) {
  const m = Math.max(0, Math.floor((serverNow() - Date.parse(at)) / 60000));
  if (m === 0) return t("board.temp_age_now");
  return t(m === 1 ? "board.temp_age_one" : "board.temp_age_other", { n: num(m) });
}

function handoffs(list) {
  const s = section(t("board.handoffs"), "handoffs");
  const ul = el("ul");
  for (const h of list) ul.append(el("li", null, h.recipe + " → " + h.station + (h.from ? " (" + t("board.handoff_from", { station: h.from }) + ")" : "") + (h.note ? ": " + h.note : "")));
  s.append(ul);
  return s;
}

const money = (cents) => (cents / 100).toLocaleString(locale(), { style: "currency", currency: "USD" });

function menu(m) {
  let title = m && m.dayPart && m.dayPart.name ? m.dayPart.name[0].toUpperCase() + m.dayPart.name.slice(1) : t("board.menu");
  if (m && m.dayPart && !m.inProgress) title = t("board.menu_next", { name: title });
  const s = section(title, "menu");
  const items = (m && m.items) || [];
  if (!items.length) {
    s.append(el("p", "muted", t("board.no_menu")));
    return s;
  }
  const ul = el("ul", "menu-items");
  for (const it of items) {
    const li = el("li", "menu-item");
    li.append(el("strong", "dish", it.name));
    if (typeof it.priceCents === "number") li.append(el("span", "price", money(it.priceCents)));
    const contains = it.contains || [];
    const may = it.mayContain || [];
    if (contains.length) li.append(el("span", "allergens", t("board.contains", { list: listOf(contains) })));
    if (may.length) li.append(el("span", "allergens may", t("board.may_contain", { list: listOf(may) })));
    ul.append(li);
  }
  s.append(ul);
  return s;
}

function trays(list) {
  const s = section(t("board.tray_line"), "trays");
  if (!list.length) {
    s.append(el("p", "muted", t("board.no_trays")));
    return s;
  }
  const table = el("table", "tray-table");
  const head = el("tr");
  for (const key of ["board.col_where", "board.col_diet", "board.col_allergens", "board.col_items", "board.col_status"]) {
    const th = el("th", null, t(key));
    th.scope = "col";
    head.append(th);
  }
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  for (const tk of list) {
    const tr = el("tr", tk.conflict ? "conflict" : null);
    tr.append(el("td", null, tk.unit + " " + tk.room + (tk.bed ? "-" + tk.bed : "")));
    tr.append(el("td", null, (tk.diets || []).map((d) => d.name || d.code).join(", ") + (tk.texture ? " · IDDSI " + tk.texture : "")));
    tr.append(el("td", "allergens", (tk.allergens || []).join(", ")));
    const items = el("td");
    for (const i of tk.items || []) {
      const flag = i.check && i.check !== "ok" ? " ⚠ " + known(itemChecks, i.check, "board.check_") + ((i.reasons || []).length ? ": " + i.reasons.join("; ") : "") : "";
      items.append(el("div", flag ? "flagged" : null, i.name + flag));
    }
    tr.append(items);
    tr.append(el("td", null, (tk.conflict ? t("board.tray_check") + " " : "") + known(trayStatuses, tk.status, "board.tray_")));
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
    // Each line is its quantity (the card's display form, "4 kg", else quantity and unit) and
    // the ingredient's name.
    const r = c.recipe;
    const ing = el("ul", "ingredients");
    for (const i of r.ingredients || []) {
      const li = el("li", "ingredient");
      li.append(el("span", "ing-qty", i.display || num(i.quantity) + " " + i.unit), " ", el("span", "ing-name", i.name || ""));
      ing.append(li);
    }
    const steps = el("ol", "steps");
    for (const st of r.steps || []) steps.append(el("li", null, typeof st === "string" ? st : st.text || ""));
    if (ing.childElementCount) recipe.append(el("h3", null, t("board.ingredients")), ing);
    if (steps.childElementCount) recipe.append(el("h3", null, t("board.steps")), steps);
    if ((r.contains || []).length) recipe.append(el("p", "allergens", t("board.contains", { list: listOf(r.contains) })));
    if ((r.mayContain || []).length) recipe.append(el("p", "allergens may", t("board.may_contain", { list: listOf(r.mayContain) })));
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
    img.alt = c.caption || t("board.image_alt");
  } catch {
    castImageKey = null; // retry on the next state
  }
}

// A change of language re-renders the screen (or the pairing form's error) in place; the
// server-written strings are re-translated by i18n.js.
onLangChange(() => {
  if (state) render();
  else if (!$("pairing").hidden) {
    document.title = t("board.page_title");
    const err = $("pair-error");
    if (pairError) err.textContent = t(pairError);
  }
});

if (token) start();
else showPairing();
