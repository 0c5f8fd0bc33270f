// Declares the shared Idempotency-Key header on every POST operation of the spec's path files,
// with the 409 and 422 answers it can bring, so every operation that creates or acts takes it
// and generated clients expose it. Line-based, so the files keep their formatting; idempotent.
// Run it after adding operations (`node tools/spec/idempotency-key.mjs` from the repository
// root, then `task generate`); a test in internal/httpapi fails when a POST lacks the header.
// webhook-events.yaml is skipped: its POSTs are the deliveries Sous sends, not operations.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

const dir = "openapi/paths";
const paramLine = "      - $ref: ../parameters.yaml#/IdempotencyKey";
const extra = [
  ["409", "../responses.yaml#/IdempotencyConflict"],
  ["422", "../responses.yaml#/IdempotencyKeyReused"],
];

const indentOf = (l) => l.length - l.trimStart().length;

for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "webhook-events.yaml").sort()) {
  const path = `${dir}/${file}`;
  const lines = readFileSync(path, "utf8").split("\n");
  const out = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i] !== "  post:") {
      out.push(lines[i++]);
      continue;
    }
    // The operation's block: up to the next line indented 2 or less.
    let end = i + 1;
    while (end < lines.length && (lines[end].trim() === "" || indentOf(lines[end]) > 2)) end++;
    out.push(...rewrite(lines.slice(i, end)));
    i = end;
  }
  const text = out.join("\n");
  if (text !== lines.join("\n")) writeFileSync(path, text);
}

function rewrite(op) {
  // Responses: add the missing statuses, in order, at the block's 6-space level.
  const r = op.indexOf("    responses:");
  if (r >= 0) {
    let end = r + 1;
    while (end < op.length && (op[end].trim() === "" || indentOf(op[end]) > 4)) end++;
    for (const [status, ref] of extra) {
      const statusRe = new RegExp(`^      ['"]?${status}['"]?:`);
      const block = op.slice(r + 1, end);
      if (block.some((l) => statusRe.test(l))) continue;
      let at = end;
      for (let k = r + 1; k < end; k++) {
        const m = /^      ['"]?(\d{3})['"]?:/.exec(op[k]);
        if (m && m[1] > status) {
          at = k;
          break;
        }
      }
      op.splice(at, 0, `      '${status}':`, `        $ref: ${ref}`);
      end += 2;
    }
  }
  if (op.includes(paramLine)) return op;
  const p = op.indexOf("    parameters:");
  if (p >= 0) {
    op.splice(p + 1, 0, paramLine);
  } else {
    // After operationId/tags/summary/description: just before requestBody or responses.
    let at = op.findIndex((l) => l === "    requestBody:" || l === "    responses:");
    if (at < 0) at = op.length;
    op.splice(at, 0, "    parameters:", paramLine);
  }
  return op;
}
