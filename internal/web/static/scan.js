// The scan landing: /scan/{tagCode}. Signed out, it shows sign-in and then resolves the tag;
// signed in, it resolves the tag in each of the member's organizations (tag codes are unique
// across organizations) and shows the target, its context and the actions the member's role
// allows. The session lives in sessionStorage (this tab only), never in a cookie; an expired
// access token is renewed once with the refresh token.
const API = "/v1";
const KEY = "sous.session";
const $ = (id) => document.getElementById(id);
const code = decodeURIComponent(location.pathname.split("/").pop() || "");

function show(id) {
  for (const s of ["loading", "signin", "target", "problem"]) $(s).hidden = s !== id;
  $("signout").hidden = !session() || id === "signin";
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
    orgs: (memberships || (s.user && s.user.memberships) || (prev && prev.orgs) || []).map((m) => m.orgId),
  }));
}

function problem(heading, text) {
  $("problem-heading").textContent = heading;
  $("problem-text").textContent = text;
  show("problem");
}

async function post(path, body) {
  return fetch(API + path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
}

async function refresh() {
  const s = session();
  if (!s || !s.refreshToken) return false;
  const res = await post("/auth/refresh", { refreshToken: s.refreshToken });
  if (!res.ok) return false;
  keep(await res.json(), null);
  return true;
}

// get calls the API with the session, renewing it once on a 401.
async function get(path) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const s = session();
    const res = await fetch(API + path, { headers: { authorization: "Bearer " + s.accessToken, accept: "application/json" } });
    if (res.status !== 401 || attempt === 1 || !(await refresh())) return res;
  }
}

async function resolve() {
  const s = session();
  if (!s) return signIn();
  show("loading");
  for (const org of s.orgs) {
    const res = await get("/orgs/" + encodeURIComponent(org) + "/scan/" + encodeURIComponent(code));
    if (res.status === 200) return render(await res.json());
    if (res.status === 401) {
      sessionStorage.removeItem(KEY);
      return signIn("Your session has ended. Please sign in again.");
    }
    if (res.status === 429) return problem("Too many requests", "Please wait a minute, then reload the page.");
    if (res.status >= 500) return problem("Temporarily unavailable", "Please try again in a moment.");
  }
  problem("Tag not found", "This tag is not in any organization you belong to, or it has been retired.");
}

const kinds = { site: "Site", equipment: "Equipment", storage_location: "Storage location" };

function fact(dl, label, value) {
  if (!value) return;
  const div = document.createElement("div");
  const dt = document.createElement("dt");
  const dd = document.createElement("dd");
  dt.textContent = label;
  dd.textContent = value;
  div.append(dt, dd);
  dl.append(div);
}

function render(r) {
  $("target-kind").textContent = kinds[r.target.type] || "Tag";
  $("target-name").textContent = r.target.name || r.label || r.tagCode;
  document.title = ($("target-name").textContent || "Scan") + " · Sous";
  const dl = $("target-facts");
  dl.replaceChildren();
  fact(dl, "Tag", r.tagCode);
  if (r.label && r.label !== r.target.name) fact(dl, "Label", r.label);
  const site = r.context && r.context.site;
  if (site) {
    fact(dl, "Site", site.name);
    fact(dl, "Local time", site.localDate + " " + site.localTime + " (" + site.timezone + ")");
  }
  const loc = r.context && r.context.storageLocation;
  $("stock-heading").hidden = $("stock").hidden = !loc;
  if (loc) {
    const ul = $("stock");
    ul.replaceChildren();
    for (const s of loc.stock || []) {
      const li = document.createElement("li");
      li.textContent = s.itemName + ": " + s.quantity + " " + s.unit + (s.belowPar ? " (below par)" : "");
      ul.append(li);
    }
    if (!(loc.stock || []).length) {
      const li = document.createElement("li");
      li.textContent = "Nothing in stock here.";
      ul.append(li);
    }
  }
  const actions = $("actions");
  actions.replaceChildren();
  for (const a of r.actions || []) {
    const li = document.createElement("li");
    li.className = "scan-action";
    li.dataset.action = a.action;
    const label = document.createElement("strong");
    label.textContent = a.label;
    const op = document.createElement("code");
    op.textContent = a.method + " " + a.path;
    li.append(label, " ", op);
    actions.append(li);
  }
  $("no-actions").hidden = (r.actions || []).length > 0;
  show("target");
  $("target-name").focus?.();
}

function signIn(message) {
  show("signin");
  const err = $("signin-error");
  err.hidden = !message;
  err.textContent = message || "";
  $("email").focus();
}

$("signin").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const email = $("email").value.trim();
  const password = $("password").value;
  if (!email || !password) return signIn("Enter your email and password.");
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
    if (res.status === 429 || res.status === 423) return signIn("Too many attempts. Wait a few minutes, then try again.");
    if (res.status === 401 || res.status === 400) return signIn("That email and password do not match an account.");
    signIn("Sign-in is unavailable right now. Please try again in a moment.");
  } catch {
    signIn("No connection. Check the network, then try again.");
  } finally {
    button.disabled = false;
  }
});

$("signout").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  signIn();
});

$("target-name").tabIndex = -1;
resolve().catch(() => problem("No connection", "Check the network, then reload the page."));
