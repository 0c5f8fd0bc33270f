// The message catalog in the browser: English and Spanish for every string a page's script
// shows. Loaded on every page before the page's own scripts, it defines window.i18n; a script
// reads it as
//   const { t, lang, locale, setLang, onLangChange, translate } = window.i18n;
// The messages come from the page itself (<script type="application/json" id="sous-messages">,
// written by the server for the namespaces the page lists), so nothing is fetched.

const STORE = "sous.lang";
const COOKIE = "sous_lang";
const LANGS = ["en", "es"];

const block = document.getElementById("sous-messages");
let data = { lang: document.documentElement.lang || "en", messages: { en: {}, es: {} } };
if (block) {
  try {
    data = JSON.parse(block.textContent);
  } catch (e) {
    console.error("i18n: the page's messages cannot be read", e);
  }
}
const listeners = [];

function stored() {
  try {
    const l = localStorage.getItem(STORE);
    return LANGS.includes(l) ? l : null;
  } catch {
    return null; // storage refused (private mode): the server's choice stands
  }
}

// lang is the phone's choice (kept by the toggle), else the server's.
function lang() {
  return stored() || (LANGS.includes(data.lang) ? data.lang : "en");
}

// locale is the language's locale for Intl: a US kitchen's Spanish writes $1,234.50 and 10.5.
function locale() {
  return lang() === "es" ? "es-US" : "en-US";
}

// t is the message in the current language with its {name} placeholders filled from vars; a
// missing key falls back to English (and is logged), then to the key itself.
function t(key, vars) {
  const l = lang();
  let s = data.messages[l] && data.messages[l][key];
  if (s === undefined) {
    console.error("i18n: no " + l + " message " + key);
    s = (data.messages.en && data.messages.en[key]) ?? key;
  }
  if (vars) {
    s = s.replace(/\{([a-zA-Z0-9_]+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  }
  return s;
}

// translate sets the text of every [data-i18n] element under root, and the attributes named in
// [data-i18n-attr="placeholder:ns.key;aria-label:ns.key"].
function translate(root) {
  const r = root || document;
  for (const el of r.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of r.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

function keepCookie(l) {
  document.cookie = COOKIE + "=" + l + "; Path=/; Max-Age=31536000; SameSite=Lax";
}

function markToggle(l) {
  for (const a of document.querySelectorAll(".lang-toggle [data-lang]")) {
    if (a.dataset.lang === l) a.setAttribute("aria-current", "true");
    else a.removeAttribute("aria-current");
  }
}

// setLang keeps the choice on the phone (storage and cookie, so the server's pages follow it
// too), marks the page's language and re-translates it in place.
function setLang(l) {
  if (!LANGS.includes(l)) return;
  try {
    localStorage.setItem(STORE, l);
  } catch {
    // storage refused: the cookie still keeps the choice
  }
  keepCookie(l);
  document.documentElement.lang = l;
  markToggle(l);
  translate(document);
  for (const fn of listeners) {
    try {
      fn(l);
    } catch (e) {
      console.error(e);
    }
  }
}

function onLangChange(fn) {
  listeners.push(fn);
}

window.i18n = { t, lang, locale, setLang, onLangChange, translate };

// A choice made with ?lang= (the toggle's link, or a link someone shared) was kept by the
// server in the cookie; keep it on the phone too, and take it out of the address so a reload
// or a copied link follows the phone's choice rather than the old link.
const url = new URL(location.href);
const asked = url.searchParams.get("lang");
if (LANGS.includes(asked)) {
  try {
    localStorage.setItem(STORE, asked);
  } catch {
    // storage refused: the cookie keeps it
  }
  url.searchParams.delete("lang");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

// A page whose script carries its messages is translated in place: on load when the phone's
// choice differs from the server's, and by the toggle without a reload. A page written whole
// by the server (no messages) follows the toggle's link, which renders it in the language.
if (block) {
  const l = lang();
  if (l !== data.lang) {
    keepCookie(l);
    document.documentElement.lang = l;
    markToggle(l);
    translate(document);
  }
  for (const a of document.querySelectorAll(".lang-toggle [data-lang]")) {
    a.addEventListener("click", (e) => {
      e.preventDefault();
      setLang(a.dataset.lang);
    });
  }
} else {
  // A server page: the phone's choice, if it differs from what was rendered, wins on the next
  // request through the cookie; the toggle's links keep both in step.
  const l = stored();
  if (l && l !== data.lang) keepCookie(l);
  for (const a of document.querySelectorAll(".lang-toggle [data-lang]")) {
    a.addEventListener("click", () => {
      try {
        localStorage.setItem(STORE, a.dataset.lang);
      } catch {
        // the link's cookie keeps it
      }
    });
  }
}
