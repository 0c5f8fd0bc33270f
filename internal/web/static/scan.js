// The floor app: /scan/{tagCode}. A cook scans the printed tag on a walk-in, a fryer or the
// receiving dock and lands here. Signed out, it shows sign-in and then resolves the tag; signed
// in, it resolves the tag in each of the member's organizations (tag codes are unique across
// organizations) and shows the target as a card, then the work there as real controls: the
// tasks due here (completed with their evidence), the location's count, waste, the equipment's
// work orders, stock adjustments and retiring the tag. Which controls show is what the server
// says the member's role allows (the resolution's actions); the page never shows an API path.
//
// The session lives in sessionStorage (this tab only), never in a cookie; an expired access
// token is renewed once with the refresh token. Every write carries an Idempotency-Key made
// once per submission and reused when it is sent again, so a submission lost to a bad
// connection is retried with the form still filled and counts once.
const { t, locale, onLangChange } = window.i18n;
const API = "/v1";
const KEY = "sous.session";
const $ = (id) => document.getElementById(id);
const code = decodeURIComponent(location.pathname.split("/").pop() || "");

// The resolution on screen and the organization it was found in.
let current = null;
let org = null;

// Texts with placeholders are kept with their values, so the language toggle re-translates them
// in place (the catalog's translate() handles plain keys).
const trVars = new WeakMap();
function tx(el, key, vars) {
  el.dataset.tr = key;
  trVars.set(el, vars || {});
  el.textContent = t(key, resolveVars(vars));
  return el;
}
function resolveVars(vars) {
  const out = {};
  for (const [k, v] of Object.entries(vars || {})) out[k] = typeof v === "function" ? v() : v;
  return out;
}
onLangChange(() => {
  for (const el of document.querySelectorAll("[data-tr]")) el.textContent = t(el.dataset.tr, resolveVars(trVars.get(el)));
  document.title = pageTitle();
});

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "i18n") {
      e.dataset.i18n = v;
      e.textContent = t(v);
    }
    else e.setAttribute(k, v === true ? "" : v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

function announce(key, vars) {
  const a = $("announce");
  a.textContent = "";
  // A change of text after a tick is what screen readers announce.
  setTimeout(() => tx(a, key, vars), 50);
}

// The session.

function show(id) {
  for (const s of ["loading", "signin", "target", "problem"]) $(s).hidden = s !== id;
  $("signout").hidden = !session() || id === "signin" || id === "loading";
}

function session() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

function keep(s, memberships) {
  const prev = session();
  sessionStorage.setItem(KEY, JSON.stringify({
    accessToken: s.accessToken,
    refreshToken: s.refreshToken,
    orgs: (memberships || (s.user && s.user.memberships) || (prev && prev.orgs) || []).map((m) => m.orgId || m),
  }));
}

function problem(headingKey, textKey) {
  tx($("problem-heading"), headingKey);
  tx($("problem-text"), textKey);
  show("problem");
  $("problem-heading").focus();
}

async function post(path, body) {
  return fetch(API + path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
}

// Of several 401s at once, one refresh runs; the others wait for it.
let refreshing = null;
function refresh() {
  if (!refreshing) {
    refreshing = (async () => {
      const s = session();
      if (!s || !s.refreshToken) return false;
      try {
        const res = await post("/auth/refresh", { refreshToken: s.refreshToken });
        if (!res.ok) return false;
        keep(await res.json(), null);
        return true;
      } catch {
        return false;
      }
    })().finally(() => setTimeout(() => (refreshing = null), 0));
  }
  return refreshing;
}

// call sends a request with the session, renewing it once on a 401. A write names its
// submission's Idempotency-Key. A network failure throws (the caller keeps the form).
async function call(method, path, opts = {}) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const s = session();
    if (!s) return new Response(null, { status: 401 });
    const headers = { authorization: "Bearer " + s.accessToken, accept: "application/json" };
    if (opts.key) headers["idempotency-key"] = opts.key;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.json);
    }
    if (opts.type) headers["content-type"] = opts.type;
    const res = await fetch(API + path, { method, headers, body });
    if (res.status !== 401 || attempt === 1 || !(await refresh())) return res;
  }
}

// Signed out in the middle of the work: back through sign-in, to this tag.
function sessionEnded() {
  sessionStorage.removeItem(KEY);
  signIn("floor.session_ended");
}

// A random UUID v4 for Idempotency-Key (crypto.randomUUID needs a secure context).
function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// submission is the key of a form's submission: the same while what is sent is the same (a
// retry), a new one when the form says something else.
function submission(form, sig) {
  if (!form._sub || form._sub.sig !== sig) form._sub = { key: uuid(), sig, done: {} };
  return form._sub;
}

// Resolving the tag.

async function resolve(focus = true) {
  const s = session();
  if (!s) return signIn();
  if (!current) show("loading");
  try {
    for (const o of s.orgs) {
      const res = await call("GET", "/orgs/" + encodeURIComponent(o) + "/scan/" + encodeURIComponent(code));
      if (res.status === 200) {
        org = o;
        return render(await res.json(), focus);
      }
      if (res.status === 401) return sessionEnded();
      if (res.status === 429) return problem("floor.err_limited_heading", "floor.err_limited_text");
      if (res.status >= 500) return problem("floor.err_down_heading", "floor.err_down_text");
    }
    problem("floor.not_found_heading", "floor.not_found_text");
  } catch {
    problem("floor.offline_heading", "floor.offline_text");
  }
}

const kindKeys = { site: "floor.kind_site", equipment: "floor.kind_equipment", storage_location: "floor.kind_storage_location" };
const unitKeys = {
  g: "floor.unit_g", kg: "floor.unit_kg", oz: "floor.unit_oz", lb: "floor.unit_lb", ml: "floor.unit_ml", l: "floor.unit_l",
  tsp: "floor.unit_tsp", tbsp: "floor.unit_tbsp", cup: "floor.unit_cup", fl_oz: "floor.unit_fl_oz", pt: "floor.unit_pt",
  qt: "floor.unit_qt", gal: "floor.unit_gal", each: "floor.unit_each", dozen: "floor.unit_dozen",
};
const woStatusKeys = {
  open: "floor.wo_status_open", in_progress: "floor.wo_status_in_progress", resolved: "floor.wo_status_resolved", cancelled: "floor.wo_status_cancelled",
};
const priorityKeys = { low: "floor.priority_low", medium: "floor.priority_medium", high: "floor.priority_high", critical: "floor.priority_critical" };

// unitName is a unit as people read it: the standard units through the catalog, an item's own
// units (case, bag) as the organization wrote them.
function unitName(u) {
  return unitKeys[u] ? t(unitKeys[u]) : u;
}

function num(s) {
  const n = Number(s);
  return Number.isFinite(n) ? new Intl.NumberFormat(locale(), { maximumFractionDigits: 3 }).format(n) : s;
}

function pageTitle() {
  return (current ? current.target.name || current.label || current.tagCode : t("floor.page_title")) + " · Sous";
}

function may(action, path) {
  return (current.actions || []).find((a) => a.action === action && (!path || a.path === path)) || null;
}

function fact(dl, key, value) {
  if (!value) return;
  const dt = el("dt", {});
  tx(dt, key);
  const dd = el("dd", {});
  if (typeof value === "function") {
    dd.dataset.tr = "floor.value";
    trVars.set(dd, { value });
    dd.textContent = value();
  } else {
    dd.textContent = value;
  }
  dl.append(el("div", {}, dt, dd));
}

// siteClock is the site's local date and time as the server read it, written for the reader.
function siteClock(site) {
  const [y, m, d] = site.localDate.split("-").map(Number);
  const [hh, mm] = site.localTime.split(":").map(Number);
  const at = new Date(Date.UTC(y, m - 1, d, hh, mm));
  return () => new Intl.DateTimeFormat(locale(), { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", hour: "numeric", minute: "2-digit" }).format(at);
}

function render(r, focus) {
  current = r;
  const ctx = r.context || {};
  tx($("target-kind"), kindKeys[r.target.type] || "floor.kind_tag");
  $("target-name").textContent = r.target.name || r.label || r.tagCode;
  document.title = pageTitle();
  const dl = $("target-facts");
  dl.replaceChildren();
  if (ctx.site) {
    fact(dl, "floor.fact_site", ctx.site.name);
    fact(dl, "floor.fact_local_time", siteClock(ctx.site));
  }
  fact(dl, "floor.fact_tag", r.tagCode);
  renderTemperature(ctx.temperature);
  renderStock(ctx.storageLocation);
  renderTasks(ctx.tasks, ctx.site);
  renderCount(ctx);
  renderWaste(ctx);
  renderEquipment(ctx.equipment);
  renderAdjust(ctx);
  renderRetire();
  const writes = ["completeTask", "createCount", "setCountLines", "createWasteLog", "createWorkOrder", "adjustStock", "deleteTag"];
  $("no-actions").hidden = (r.actions || []).some((a) => writes.includes(a.action));
  show("target");
  if (focus) $("target-name").focus();
}

function renderTemperature(temp) {
  const p = $("temp");
  p.hidden = !temp;
  if (!temp) return;
  p.className = "temp " + (temp.inRange ? "temp-ok" : "temp-bad");
  const range = temp.minF && temp.maxF ? t("floor.range_f", { min: num(temp.minF), max: num(temp.maxF) }) : "";
  const at = () => new Intl.DateTimeFormat(locale(), { hour: "numeric", minute: "2-digit", timeZone: current.context.site ? current.context.site.timezone : undefined }).format(new Date(temp.at));
  tx(p, temp.inRange ? "floor.temp_ok" : "floor.temp_bad", { value: () => num(temp.valueF), at, range: () => (temp.minF && temp.maxF ? t("floor.range_f", { min: num(temp.minF), max: num(temp.maxF) }) : range) });
}

function renderStock(loc) {
  $("stock-box").hidden = !loc;
  if (!loc) return;
  const ul = $("stock");
  ul.replaceChildren();
  for (const s of loc.stock || []) {
    const li = el("li", {});
    tx(li, s.belowPar ? "floor.stock_line_below_par" : "floor.stock_line", { item: s.itemName, quantity: () => num(s.quantity), unit: () => unitName(s.unit) });
    ul.append(li);
  }
  if (!(loc.stock || []).length) {
    const li = el("li", {});
    tx(li, "floor.stock_empty");
    ul.append(li);
  }
}

// Tasks due here.

function dueDate(task) {
  return new Date(task.dueAt.replace(" ", "T"));
}

function renderTasks(tasks, site) {
  const card = $("tasks-card");
  card.hidden = !tasks;
  if (!tasks) return;
  const ul = $("tasks");
  ul.replaceChildren();
  $("tasks-none").hidden = tasks.length > 0;
  tasks.forEach((task, i) => ul.append(taskItem(task, i, site)));
}

function taskItem(task, i, site) {
  const overdue = task.status === "missed" || dueDate(task) < new Date();
  const id = "task" + i;
  const li = el("li", { class: "task" + (overdue ? " overdue" : ""), "aria-labelledby": id + "-title" });
  const h = el("h3", { id: id + "-title", text: task.title });
  const meta = el("p", { class: "task-meta" });
  if (overdue) meta.append(el("span", { class: "badge badge-overdue", i18n: "floor.task_overdue" }), " ");
  const due = el("span", {});
  const time = task.dueAt.slice(11, 16);
  tx(due, "floor.task_due", { time: () => new Intl.DateTimeFormat(locale(), { hour: "numeric", minute: "2-digit", timeZone: "UTC" }).format(new Date(Date.UTC(2000, 0, 1, Number(time.slice(0, 2)), Number(time.slice(3, 5))))) });
  meta.append(due);
  li.append(h, meta);
  if (task.description) li.append(el("p", { class: "task-desc", text: task.description }));
  const complete = may("completeTask", `/orgs/${org}/tasks/${task.id}/complete`);
  if (complete) li.append(taskForm(task, id, complete.path, site));
  return li;
}

const decimalRe = /^-?\d{1,4}([.,]\d{1,3})?$/;

function taskForm(task, id, completePath, site) {
  const photoPath = completePath.replace(/\/complete$/, "/photos");
  const canPhoto = !!may("addTaskPhoto", photoPath);
  const form = el("form", { class: "form task-form", novalidate: true, "aria-labelledby": id + "-title" });
  const range = task.tempRange;
  if (task.requiresScan) {
    form.append(el("p", { class: "check-ok", i18n: "floor.task_scan_ok" }));
  }
  let temp, unit, tempWarn;
  if (task.requiresTemp || range) {
    temp = el("input", { id: id + "-temp", type: "text", inputmode: "decimal", autocomplete: "off", "aria-describedby": id + "-temp-hint " + id + "-temp-error" });
    unit = el("select", { id: id + "-unit" }, el("option", { value: "F", i18n: "floor.unit_f" }), el("option", { value: "C", i18n: "floor.unit_c" }));
    const hint = el("p", { class: "hint", id: id + "-temp-hint" });
    if (range) tx(hint, "floor.task_range", { min: () => num(range.minF), max: () => num(range.maxF) });
    tempWarn = el("p", { class: "warning", id: id + "-temp-warn", hidden: true, role: "status" });
    form.append(el("div", { class: "field-row" },
      el("div", { class: "field" }, el("label", { for: temp.id, i18n: task.requiresTemp ? "floor.task_temperature" : "floor.task_temperature_optional" }), temp, hint,
        el("p", { class: "error", id: id + "-temp-error", hidden: true })),
      el("div", { class: "field field-unit" }, el("label", { for: unit.id, i18n: "floor.unit" }), unit)), tempWarn);
  }
  let photo;
  if (canPhoto) {
    const label = task.requiresPhoto && !(task.attachmentMediaIds || []).length ? "floor.task_photo_required" : "floor.task_photo_optional";
    const field = photoField(id + "-photo", label);
    photo = field.input;
    form.append(field.div);
  }
  const note = el("textarea", { id: id + "-note", maxlength: "2000", "aria-describedby": id + "-note-error" });
  const noteLabel = el("label", { for: note.id, i18n: "floor.task_note" });
  form.append(el("div", { class: "field" }, noteLabel, note, el("p", { class: "error", id: id + "-note-error", hidden: true })));
  const error = el("p", { class: "form-error", role: "alert", hidden: true });
  const button = el("button", { type: "submit", class: "primary", i18n: "floor.task_complete" });
  form.append(error, button);

  const fahrenheit = () => {
    if (!temp || !decimalRe.test(temp.value.trim())) return null;
    const v = Number(temp.value.trim().replace(",", "."));
    return unit.value === "C" ? (v * 9) / 5 + 32 : v;
  };
  const outOfRange = () => {
    const f = fahrenheit();
    return f !== null && range && (f < Number(range.minF) || f > Number(range.maxF));
  };
  const warn = () => {
    if (!tempWarn) return;
    const out = outOfRange();
    tempWarn.hidden = !out;
    if (out) tx(tempWarn, "floor.task_out_of_range", { min: () => num(range.minF), max: () => num(range.maxF) });
    tx(noteLabel, out ? "floor.task_note_corrective" : "floor.task_note");
  };
  if (temp) {
    temp.addEventListener("input", warn);
    unit.addEventListener("change", warn);
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (form._busy) return; // a second tap while the first is on its way
    clearErrors(form, error);
    const problems = [];
    const value = temp ? temp.value.trim() : "";
    if (temp && value && !decimalRe.test(value)) problems.push([temp, "floor.err_temperature_format"]);
    else if (task.requiresTemp && !value) problems.push([temp, "floor.err_temperature_required"]);
    const file = photo && photo.files[0];
    if (photo && task.requiresPhoto && !file && !(task.attachmentMediaIds || []).length) problems.push([photo, "floor.err_photo_required"]);
    if (outOfRange() && !note.value.trim()) problems.push([note, "floor.err_corrective_note"]);
    if (problems.length) return fieldErrors(problems);

    const body = {};
    if (task.requiresScan || task.target) body.scanCode = current.tagCode;
    if (value) body.temperature = { value: value.replace(",", "."), unit: unit.value };
    if (note.value.trim()) body.note = note.value.trim();
    const sub = submission(form, JSON.stringify([body, file ? [file.name, file.size, file.lastModified] : null]));
    await busy(form, button, async () => {
      if (file && !sub.done.photo) {
        const res = await uploadPhoto(photoPath, file, sub);
        if (res.status === 401) return sessionEnded();
        if (res.status !== 201) return formError(error, photoError(res.status));
        sub.done.photo = true;
      }
      const res = await call("POST", completePath, { json: body, key: sub.key + "-complete" });
      if (res.status === 401) return sessionEnded();
      if (res.status === 200) {
        const done = await res.json();
        form._sub = null;
        const result = el("p", { class: "result done", tabindex: "-1", role: "status" });
        const at = () => new Intl.DateTimeFormat(locale(), { hour: "numeric", minute: "2-digit", timeZone: site ? site.timezone : undefined }).format(new Date(done.completedAt));
        tx(result, done.evidence && done.evidence.outOfRange ? "floor.task_done_out_of_range" : "floor.task_done", { time: at });
        form.replaceWith(result);
        result.closest("li").classList.remove("overdue");
        result.closest("li").classList.add("is-done");
        result.focus();
        return;
      }
      if (res.status === 409) return formError(error, "floor.err_task_closed");
      if (res.status === 400) {
        const b = await res.json().catch(() => ({}));
        const fields = (b.details || []).map((d) => d.field);
        if (fields.includes("photos")) return fieldErrors([[photo || button, "floor.err_photo_required"]]);
        if (fields.some((f) => f.startsWith("temperature"))) return fieldErrors([[temp || button, "floor.err_temperature_format"]]);
        if (fields.includes("scanCode")) return formError(error, "floor.err_scan_mismatch");
        return formError(error, "floor.err_invalid");
      }
      formError(error, statusError(res.status));
    });
  });
  return form;
}

// The photo control: a visually hidden file input (the browser's own "Choose File" would speak
// its language, not the page's), a visible label styled as a button that opens the camera, and
// the chosen photo's name. The template writes the same markup for the problem form.
function photoField(id, titleKey) {
  const input = el("input", { id, class: "visually-hidden", type: "file", accept: "image/*", capture: "environment",
    "aria-labelledby": id + "-title " + id + "-button", "aria-describedby": id + "-name " + id + "-error" });
  const div = el("div", { class: "field photo-field" },
    el("p", { class: "field-title", id: id + "-title", i18n: titleKey }),
    input,
    el("label", { for: id, id: id + "-button", class: "button photo-button", i18n: "floor.photo_take" }),
    el("p", { class: "photo-name", id: id + "-name", i18n: "floor.photo_none" }),
    el("p", { class: "error", id: id + "-error", hidden: true }));
  wirePhoto(input);
  return { div, input };
}

// wirePhoto names the chosen photo under the button, and the button says it takes another.
function wirePhoto(input) {
  const sync = () => {
    const file = input.files && input.files[0];
    const button = $(input.id + "-button");
    const name = $(input.id + "-name");
    for (const e of [button, name]) if (e) delete e.dataset.i18n;
    if (button) tx(button, file ? "floor.photo_retake" : "floor.photo_take");
    // A photo straight from the camera may come without a name: then no name is shown.
    if (name) tx(name, !file ? "floor.photo_none" : file.name ? "floor.photo_chosen" : "floor.photo_ready", file && file.name ? { name: file.name } : {});
  };
  input.addEventListener("change", sync);
  input._syncPhoto = sync;
}

function photoError(status) {
  if (status === 413) return "floor.err_photo_too_large";
  if (status === 400 || status === 415) return "floor.err_photo_type";
  if (status === 409) return "floor.err_task_closed";
  return statusError(status);
}

// A phone's camera writes large files; above 4 MiB the photo is sent as a JPEG of at most
// 2560 px a side (the API takes 5 MiB). The result is kept with the submission, so a retry
// sends the same bytes.
async function photoBytes(file, sub) {
  if (sub.photo) return sub.photo;
  let blob = file;
  let type = file.type || "application/octet-stream";
  if (file.size > 4 * 1024 * 1024 && window.createImageBitmap) {
    try {
      const img = await createImageBitmap(file);
      const scale = Math.min(1, 2560 / Math.max(img.width, img.height));
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(img.width * scale);
      canvas.height = Math.round(img.height * scale);
      canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
      blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.85));
      type = "image/jpeg";
    } catch {
      blob = file;
    }
  }
  sub.photo = { blob, type };
  return sub.photo;
}

// uploadPhoto sends the photo as multipart/form-data written here, with a boundary of the
// submission: a retry sends the same bytes, so the API replays the first answer.
async function uploadPhoto(path, file, sub) {
  const { blob, type } = await photoBytes(file, sub);
  const boundary = "sous-" + sub.key;
  const name = (file.name || "photo.jpg").replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "photo.jpg";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`;
  const body = new Blob([head, blob, `\r\n--${boundary}--\r\n`]);
  return call("POST", path, { body, type: "multipart/form-data; boundary=" + boundary, key: sub.key + "-photo" });
}

// Forms: errors, busy buttons, the network.

function clearErrors(form, error) {
  for (const p of form.querySelectorAll(".error")) p.hidden = true;
  for (const f of form.querySelectorAll("[aria-invalid]")) f.removeAttribute("aria-invalid");
  if (error) error.hidden = true;
}

function fieldErrors(problems) {
  for (const [field, key] of problems) {
    const p = field.id && document.getElementById(field.id + "-error");
    field.setAttribute("aria-invalid", "true");
    if (p) {
      tx(p, key);
      p.hidden = false;
    }
  }
  problems[0][0].focus();
}

function formError(p, key, vars) {
  tx(p, key, vars);
  p.hidden = false;
}

function statusError(status) {
  if (status === 403) return "floor.err_forbidden";
  if (status === 404) return "floor.err_gone";
  if (status === 429) return "floor.err_limited_text";
  if (status >= 500) return "floor.err_down_text";
  return "floor.err_invalid";
}

// busy runs a submission with its button disabled; a network failure leaves the form as it
// is, says so, and the next tap sends the same submission again.
async function busy(form, button, fn) {
  form._busy = true;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  const error = form.querySelector(".form-error");
  try {
    await fn();
  } catch (e) {
    console.error(e);
    if (error) formError(error, "floor.err_offline_kept");
    form._retry = true;
  } finally {
    form._busy = false;
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

// Back online: the submissions a lost connection interrupted are sent again, with their keys.
window.addEventListener("online", () => {
  for (const f of document.querySelectorAll("form")) {
    if (f._retry && f._sub && !f._busy) {
      f._retry = false;
      f.requestSubmit();
    }
  }
});

// Count this location.

function renderCount(ctx) {
  const loc = ctx.storageLocation;
  const count = ctx.count;
  const lines = count ? may("setCountLines", `/orgs/${org}/counts/${count.id}/lines`) : null;
  const start = may("createCount");
  const close = count ? may("closeCount", `/orgs/${org}/counts/${count.id}/close`) : null;
  $("count-card").hidden = !loc || !(lines || start || close);
  if ($("count-card").hidden) return;
  const info = $("count-info");
  info.hidden = !count;
  if (count) {
    tx(info, "floor.count_info", { name: count.name, at: () => new Intl.DateTimeFormat(locale(), { hour: "numeric", minute: "2-digit", day: "numeric", month: "short", timeZone: ctx.site ? ctx.site.timezone : undefined }).format(new Date(count.countedAt)) });
  }
  $("count-start-row").hidden = !!count || !start;
  $("count-form").hidden = !lines;
  $("count-close-row").hidden = !close;
  $("count-none").hidden = !lines || (loc.stock || []).length > 0;
  const box = $("count-fields");
  box.replaceChildren();
  if (!lines) return;
  const byItem = new Map();
  for (const l of count.lines) if (!l.lotId) byItem.set(l.itemId, l);
  const seen = new Set();
  (loc.stock || []).forEach((s, i) => {
    if (seen.has(s.itemId)) return;
    seen.add(s.itemId);
    const line = byItem.get(s.itemId);
    const input = el("input", { id: "count-" + i, type: "text", inputmode: "decimal", autocomplete: "off", "aria-describedby": "count-" + i + "-unit count-" + i + "-status count-" + i + "-error" });
    if (line) input.value = line.unit === s.unit ? line.quantity : line.quantityBase;
    input.dataset.saved = input.value;
    const unitText = el("span", { class: "unit", id: "count-" + i + "-unit" });
    tx(unitText, "floor.value", { value: () => unitName(s.unit) });
    const status = el("span", { class: "saved", id: "count-" + i + "-status", "aria-live": "polite" });
    const field = el("div", { class: "field count-field" },
      el("label", { for: input.id, text: s.itemName }),
      el("div", { class: "with-unit" }, input, unitText, status),
      el("p", { class: "error", id: input.id + "-error", hidden: true }));
    box.append(field);
    input.addEventListener("change", () => saveCountLine(lines.path, loc.id, s, input, status));
  });
}

// A count line is saved as soon as its field is left: a blank removes the line.
async function saveCountLine(path, locationId, stock, input, status) {
  const value = input.value.trim().replace(",", ".");
  const err = $(input.id + "-error");
  err.hidden = true;
  input.removeAttribute("aria-invalid");
  if (value === input.dataset.saved) return;
  if (value && !/^[+]?\d+(\.\d+)?$/.test(value)) {
    input.setAttribute("aria-invalid", "true");
    tx(err, "floor.err_quantity_format");
    err.hidden = false;
    return;
  }
  tx(status, "floor.count_saving");
  const line = { itemId: stock.itemId, locationId, quantity: value || null, unit: stock.unit };
  const sub = submission(input, JSON.stringify(line));
  try {
    const res = await call("PUT", path, { json: { lines: [line] }, key: sub.key });
    if (res.status === 401) return sessionEnded();
    if (res.status === 200) {
      input.dataset.saved = value;
      input._sub = null;
      tx(status, "floor.count_saved");
      return;
    }
    status.textContent = "";
    tx(err, res.status === 409 ? "floor.err_count_closed" : res.status === 400 ? "floor.err_quantity_format" : statusError(res.status));
    err.hidden = false;
  } catch {
    tx(status, "floor.count_not_saved");
    input._retry = true;
  }
}

// Enter in a count field saves it (its change event); the form itself never submits.
$("count-form").addEventListener("submit", (ev) => ev.preventDefault());

$("count-start").addEventListener("click", async () => {
  const action = may("createCount");
  const button = $("count-start");
  const site = current.context.site;
  const loc = current.context.storageLocation;
  // The moment counted is now, a minute back so a phone's clock a little ahead is not "future".
  const countedAt = new Date(Date.now() - 60000).toISOString().replace(/\.\d+Z$/, "Z");
  const form = $("count-form");
  const body = { siteId: site.id, name: t("floor.count_name", { location: loc.name, date: site.localDate }), locationIds: [loc.id] };
  const sub = submission(button, JSON.stringify(body));
  sub.countedAt = sub.countedAt || countedAt;
  await busy(form, button, async () => {
    const res = await call("POST", action.path, { json: { ...body, countedAt: sub.countedAt }, key: sub.key });
    if (res.status === 401) return sessionEnded();
    if (res.status === 201) {
      button._sub = null;
      await resolve(false);
      announce("floor.count_started");
      const first = $("count-fields").querySelector("input");
      if (first) first.focus();
      return;
    }
    tx($("count-result"), statusError(res.status));
    $("count-result").hidden = false;
  }).then(() => {
    if (form._retry) {
      tx($("count-result"), "floor.err_offline_kept");
      $("count-result").hidden = false;
    }
  });
});

$("count-close").addEventListener("click", async () => {
  const count = current.context.count;
  const action = may("closeCount", `/orgs/${org}/counts/${count.id}/close`);
  const button = $("count-close");
  const result = $("count-result");
  const sub = submission(button, count.id);
  const holder = $("count-card");
  await busy(holder, button, async () => {
    const res = await call("POST", action.path, { key: sub.key });
    if (res.status === 401) return sessionEnded();
    if (res.status === 200) {
      const closed = await res.json();
      const flagged = (closed.lines || []).filter((l) => l.flagged).length;
      await resolve(false);
      tx(result, "floor.count_closed", { lines: (closed.lines || []).length, flagged });
      result.hidden = false;
      $("count-card").hidden = false;
      result.tabIndex = -1;
      result.focus();
      return;
    }
    tx(result, res.status === 409 ? "floor.err_count_conflict" : statusError(res.status));
    result.hidden = false;
  });
});

// Log waste here.

let wasteItems = [];

function stockItems(loc) {
  const seen = new Set();
  const out = [];
  for (const s of (loc && loc.stock) || []) {
    if (seen.has(s.itemId)) continue;
    seen.add(s.itemId);
    out.push({ id: s.itemId, name: s.itemName, units: [s.unit] });
  }
  return out;
}

function fillItems(select, items, keep) {
  const prev = keep ? select.value : "";
  select.replaceChildren(el("option", { value: "", i18n: items.length ? "floor.choose_item" : "floor.no_items" }));
  for (const it of items) select.append(el("option", { value: it.id, text: it.name }));
  if (prev && items.some((i) => i.id === prev)) select.value = prev;
}

function fillUnits(select, item) {
  const prev = select.value;
  select.replaceChildren();
  for (const u of (item && item.units) || []) {
    const o = el("option", { value: u });
    tx(o, "floor.value", { value: () => unitName(u) });
    select.append(o);
  }
  if (prev && item && item.units.includes(prev)) select.value = prev;
}

function renderWaste(ctx) {
  const action = may("createWasteLog");
  $("waste-card").hidden = !action || !ctx.storageLocation;
  if ($("waste-card").hidden) return;
  wasteItems = stockItems(ctx.storageLocation);
  fillItems($("waste-item"), wasteItems, true);
  fillUnits($("waste-unit"), wasteItems.find((i) => i.id === $("waste-item").value));
}

let searchTimer = null;
$("waste-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(searchItems, 250);
});

async function searchItems() {
  const q = $("waste-search").value.trim();
  if (!q) {
    wasteItems = stockItems(current.context.storageLocation);
    fillItems($("waste-item"), wasteItems, true);
    return;
  }
  try {
    const res = await call("GET", `/orgs/${org}/inventory-items?active=true&limit=20&q=${encodeURIComponent(q)}`);
    if (res.status !== 200) return;
    const items = await res.json();
    wasteItems = items.map((it) => ({ id: it.id, name: it.name, units: [it.baseUnit, ...(it.units || []).map((u) => u.name)] }));
    fillItems($("waste-item"), wasteItems, false);
    if (wasteItems.length === 1) $("waste-item").value = wasteItems[0].id;
    fillUnits($("waste-unit"), wasteItems.find((i) => i.id === $("waste-item").value));
    announce(wasteItems.length === 1 ? "floor.search_found_one" : "floor.search_found_other", { n: wasteItems.length });
  } catch {
    // offline: the list stays as it was
  }
}

$("waste-item").addEventListener("change", () => fillUnits($("waste-unit"), wasteItems.find((i) => i.id === $("waste-item").value)));

$("waste-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = $("waste-form");
  if (form._busy) return;
  const error = $("waste-error");
  const result = $("waste-result");
  clearErrors(form, error);
  result.hidden = true;
  const item = wasteItems.find((i) => i.id === $("waste-item").value);
  const qty = $("waste-qty").value.trim().replace(",", ".");
  const problems = [];
  if (!item) problems.push([$("waste-item"), "floor.err_item_required"]);
  if (!/^\d+(\.\d+)?$/.test(qty) || Number(qty) <= 0) problems.push([$("waste-qty"), "floor.err_quantity_positive"]);
  if (problems.length) return fieldErrors(problems);
  const ctx = current.context;
  const body = { siteId: ctx.site.id, locationId: ctx.storageLocation.id, itemId: item.id, quantity: qty, unit: $("waste-unit").value, reason: $("waste-reason").value };
  const note = $("waste-note").value.trim();
  if (note) body.note = note;
  const sub = submission(form, JSON.stringify(body));
  await busy(form, form.querySelector("button[type=submit]"), async () => {
    const res = await call("POST", may("createWasteLog").path, { json: body, key: sub.key });
    if (res.status === 401) return sessionEnded();
    if (res.status === 201) {
      form._sub = null;
      tx(result, "floor.waste_logged", { quantity: () => num(qty), unit: () => unitName(body.unit), item: item.name });
      result.hidden = false;
      $("waste-qty").value = "";
      $("waste-note").value = "";
      refreshStock();
      return;
    }
    if (res.status === 409) return formError(error, "floor.err_not_enough_stock");
    formError(error, res.status === 400 ? "floor.err_invalid" : statusError(res.status));
  });
});

// After a movement the stock here is read again (the rest of the page stays as it is).
async function refreshStock() {
  const list = may("listStock");
  if (!list) return;
  try {
    const res = await call("GET", list.path + "&limit=100");
    if (res.status !== 200) return;
    current.context.storageLocation.stock = await res.json();
    renderStock(current.context.storageLocation);
  } catch {
    // the list stays as it was
  }
}

// Equipment.

function renderEquipment(eq) {
  $("equipment-card").hidden = !eq;
  if (!eq) return;
  const ul = $("work-orders");
  ul.replaceChildren();
  for (const w of eq.workOrders) ul.append(workOrderItem(w));
  if (!eq.workOrders.length) ul.append(el("li", { class: "muted", i18n: "floor.work_orders_none" }));
  $("problem-form").hidden = !may("createWorkOrder");
}

function workOrderItem(w) {
  const status = el("span", { class: "badge", i18n: woStatusKeys[w.status] });
  const prio = el("span", { class: "badge badge-" + w.priority, i18n: priorityKeys[w.priority] });
  const li = el("li", { class: "work-order" }, el("strong", { text: w.title }), " ", status, " ", prio);
  if (w.description) li.append(el("p", { class: "task-desc", text: w.description }));
  return li;
}

$("problem-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = $("problem-form");
  if (form._busy) return;
  const error = $("problem-error");
  const result = $("problem-result");
  clearErrors(form, error);
  result.hidden = true;
  const title = $("problem-title").value.trim();
  if (!title) return fieldErrors([[$("problem-title"), "floor.err_problem_title"]]);
  const body = { equipmentId: current.context.equipment.id, title, priority: $("problem-priority").value };
  const description = $("problem-description").value.trim();
  if (description) body.description = description;
  const input = $("problem-photo");
  const file = input.files[0];
  // The work order is opened once per submission (its key), then the photo attached to it with
  // a key of its own (a submission of the work order and the photo): a retry after a lost
  // answer skips what is done and sends the rest again with the same keys.
  const sub = submission(form, JSON.stringify(body));
  await busy(form, form.querySelector("button[type=submit]"), async () => {
    let w = sub.done.workOrder;
    if (!w) {
      const res = await call("POST", may("createWorkOrder").path, { json: body, key: sub.key });
      if (res.status === 401) return sessionEnded();
      if (res.status !== 201) return formError(error, statusError(res.status));
      w = sub.done.workOrder = await res.json();
      current.context.equipment.workOrders.unshift(w);
      renderEquipment(current.context.equipment);
    }
    if (file) {
      const psub = submission(input, JSON.stringify([w.id, file.name, file.size, file.lastModified]));
      const res = await uploadPhoto(`/orgs/${org}/work-orders/${w.id}/photos`, file, psub);
      if (res.status === 401) return sessionEnded();
      if (res.status !== 201) {
        // The work order stands; the next tap attaches a photo to it, nothing else.
        input.setAttribute("aria-invalid", "true");
        tx($("problem-photo-error"), photoError(res.status));
        $("problem-photo-error").hidden = false;
        return formError(error, "floor.problem_photo_failed");
      }
    }
    form._sub = null;
    input._sub = null;
    $("problem-title").value = "";
    $("problem-description").value = "";
    input.value = "";
    input._syncPhoto();
    tx(result, file ? "floor.problem_reported_photo" : "floor.problem_reported");
    result.hidden = false;
  });
});
wirePhoto($("problem-photo"));

// Adjust stock here (manager and up).

function renderAdjust(ctx) {
  const action = may("adjustStock");
  $("adjust-card").hidden = !action || !ctx.storageLocation;
  if ($("adjust-card").hidden) return;
  const items = stockItems(ctx.storageLocation);
  fillItems($("adjust-item"), items, true);
  const sync = () => fillUnits($("adjust-unit"), items.find((i) => i.id === $("adjust-item").value));
  $("adjust-item").onchange = sync;
  sync();
}

$("adjust-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = $("adjust-form");
  if (form._busy) return;
  const error = $("adjust-error");
  const result = $("adjust-result");
  clearErrors(form, error);
  result.hidden = true;
  const itemId = $("adjust-item").value;
  let qty = $("adjust-qty").value.trim().replace(",", ".");
  const problems = [];
  if (!itemId) problems.push([$("adjust-item"), "floor.err_item_required"]);
  if (!/^[+-]?\d+(\.\d+)?$/.test(qty) || Number(qty) === 0) problems.push([$("adjust-qty"), "floor.err_quantity_format"]);
  if (problems.length) return fieldErrors(problems);
  const reason = $("adjust-reason").value;
  // An issue takes stock away, a receipt adds it; a correction goes the way it is written.
  const abs = qty.replace(/^[+-]/, "");
  if (reason === "issue") qty = "-" + abs;
  if (reason === "receipt") qty = abs;
  const ctx = current.context;
  const body = { siteId: ctx.site.id, lines: [{ itemId, locationId: ctx.storageLocation.id, quantity: qty, unit: $("adjust-unit").value, reason }] };
  const sub = submission(form, JSON.stringify(body));
  await busy(form, form.querySelector("button[type=submit]"), async () => {
    const res = await call("POST", may("adjustStock").path, { json: body, key: sub.key });
    if (res.status === 401) return sessionEnded();
    if (res.status === 201 || res.status === 200) {
      form._sub = null;
      tx(result, "floor.adjust_done");
      result.hidden = false;
      $("adjust-qty").value = "";
      refreshStock();
      return;
    }
    if (res.status === 409) return formError(error, "floor.err_not_enough_stock");
    formError(error, res.status === 400 ? "floor.err_invalid" : statusError(res.status));
  });
});

// Retire the tag (with a confirmation).

function renderRetire() {
  const action = may("deleteTag");
  $("retire-card").hidden = !action;
  $("retire-confirm-box").hidden = true;
  $("retire-ask-row").hidden = false;
  $("retire-error").hidden = true;
}

$("retire").addEventListener("click", () => {
  $("retire-ask-row").hidden = true;
  $("retire-confirm-box").hidden = false;
  $("retire-question").focus();
});

$("retire-cancel").addEventListener("click", () => {
  $("retire-confirm-box").hidden = true;
  $("retire-ask-row").hidden = false;
  $("retire").focus();
});

$("retire-confirm").addEventListener("click", async () => {
  const button = $("retire-confirm");
  const box = $("retire-card");
  await busy(box, button, async () => {
    const res = await call("DELETE", may("deleteTag").path);
    if (res.status === 401) return sessionEnded();
    if (res.status === 204 || res.status === 404) {
      current = null;
      return problem("floor.retired_heading", "floor.retired_text");
    }
    formError($("retire-error"), statusError(res.status));
  });
  if (box._retry) formError($("retire-error"), "floor.err_offline_kept");
});

// Sign-in.

function signIn(messageKey) {
  current = null;
  show("signin");
  const err = $("signin-error");
  err.hidden = !messageKey;
  if (messageKey) tx(err, messageKey);
  $("email").focus();
}

$("signin").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const email = $("email").value.trim();
  const password = $("password").value;
  if (!email || !password) return signIn("floor.signin_missing");
  const button = ev.submitter || $("signin").querySelector("button");
  button.disabled = true;
  try {
    const res = await post("/auth/login", { email, password });
    if (res.status === 200) {
      const s = await res.json();
      keep(s, s.user.memberships);
      $("password").value = "";
      return await resolve();
    }
    if (res.status === 429 || res.status === 423) return signIn("floor.signin_locked");
    if (res.status === 401 || res.status === 400) return signIn("floor.signin_wrong");
    signIn("floor.signin_unavailable");
  } catch {
    signIn("floor.signin_offline");
  } finally {
    button.disabled = false;
  }
});

$("signout").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  signIn();
});

resolve().catch((e) => {
  console.error(e);
  problem("floor.offline_heading", "floor.offline_text");
});
