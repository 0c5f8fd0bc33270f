// A partner's webhook receiver on Node.js with node:crypto alone: the README's "Verifying a
// delivery" shows this file, and a Go test holds the two to the same bytes, so what the README
// teaches is what `task ts` type-checks.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const secret = process.env.SOUS_WEBHOOK_SECRET ?? ""; // whsec_…, as shown at creation

function verifySignature(rawBody: Buffer, header: string | undefined): boolean {
  const signature = (header ?? "").trim();
  // 64 hex digits, so both buffers are 32 bytes: timingSafeEqual throws on a length mismatch.
  if (secret === "" || !/^[0-9a-fA-F]{64}$/.test(signature)) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(signature, "hex"), expected);
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const raw = Buffer.concat(chunks); // the exact bytes: verify before JSON.parse
    const header = req.headers["x-service-signature"];
    if (!verifySignature(raw, Array.isArray(header) ? header[0] : header)) {
      res.writeHead(401).end();
      return;
    }
    const { event, orgId, at, data } = JSON.parse(raw.toString("utf8"));
    console.log("received", event, orgId, at, data);
    res.writeHead(204).end(); // within 8 seconds; queue slow work
  });
}).listen(3000);
