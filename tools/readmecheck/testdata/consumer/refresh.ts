// The client's refresh on expiry, against a fake API: the access token "old" has expired, the
// refresh token "r1" may be exchanged once (for "new" and "r2"). Five calls at once find the
// token expired; one exchange must serve them all, and each call must then succeed.
import { createSousClient } from "@sous/api-client";

const seen = { refreshes: 0, authorizations: [] as string[], devices: [] as string[], bodies: [] as string[] };
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

async function fakeApi(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === "/v1/auth/refresh") {
    seen.refreshes++;
    const { refreshToken } = (await request.json()) as { refreshToken: string };
    // Slow enough that every call of the burst fails before the exchange answers.
    await new Promise((r) => setTimeout(r, 50));
    if (refreshToken !== "r1") return json(401, { error: "Invalid refresh token", statusCode: 401, code: "invalid_refresh_token" });
    return json(200, { accessToken: "new", refreshToken: "r2", expiresIn: 900, user: { id: "u", email: "a@example.com", name: "A", memberships: [] } });
  }
  if (path === "/v1/device/state") {
    seen.devices.push(request.headers.get("x-device-token") ?? "");
    return json(200, {});
  }
  const auth = request.headers.get("authorization") ?? "";
  seen.authorizations.push(auth);
  if (request.method === "POST") seen.bodies.push(await request.text());
  if (auth !== "Bearer new") return json(401, { error: "Access token expired", statusCode: 401, code: "token_expired" });
  return json(200, { id: "u", email: "a@example.com", name: "A", memberships: [] });
}

let kept: string | undefined;
const api = createSousClient({
  baseUrl: "http://api.test/v1",
  token: "old",
  refreshToken: "r1",
  onSession: (s) => {
    kept = s.refreshToken;
  },
  fetch: fakeApi,
});
// Five reads and a write with a body (sent again whole) at once.
const results = await Promise.all([
  ...[1, 2, 3, 4, 5].map(() => api.GET("/auth/me").then((r) => r.data?.email)),
  api.POST("/orgs", { body: { name: "Harborview" } }).then((r) => r.response.status),
]);
const after = await api.GET("/auth/me");

// A refresh token that is refused: the call fails with the refresh's error, once.
const stale = createSousClient({ baseUrl: "http://api.test/v1", token: "expired", refreshToken: "r0", fetch: fakeApi });
let staleCode = "";
try {
  await stale.GET("/auth/me");
} catch (e) {
  staleCode = (e as { code: string }).code;
}

const device = createSousClient({ baseUrl: "http://api.test/v1", deviceToken: "sous_dev_x", fetch: fakeApi });
await device.GET("/device/state", {});

console.log(
  JSON.stringify({
    results,
    refreshes: seen.refreshes,
    kept,
    afterOk: after.data?.email === "a@example.com",
    postBodies: seen.bodies,
    staleCode,
    devices: seen.devices,
  }),
);
