// A form refused by the server comes back with a summary of what to correct above it: bring
// the summary into view and focus it, so a phone's reader (375 px, the form below the
// document) lands on it rather than at the top of the page, and a screen reader reads it.
const summary = document.getElementById("error-summary");
if (summary) {
  summary.scrollIntoView({ block: "start" });
  summary.focus({ preventScroll: true });
}
// A link of the summary moves to its field and focuses it.
for (const a of document.querySelectorAll("#error-summary a[href^='#']")) {
  a.addEventListener("click", (e) => {
    const field = document.getElementById(a.getAttribute("href").slice(1));
    if (!field) return;
    e.preventDefault();
    field.scrollIntoView({ block: "center" });
    field.focus({ preventScroll: true });
  });
}
