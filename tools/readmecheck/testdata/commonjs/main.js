// A CommonJS project's use of @sous/api-client (a project `npm init -y` makes): require(), no
// TypeScript. The readmecheck tests run it with node against a server.
const { createSousClient, SousApiError } = require("@sous/api-client");

async function main() {
  const baseUrl = process.env.SOUS_API || "http://localhost:8080/v1";
  let token;
  const api = createSousClient({ baseUrl, token: () => token });
  const { data: session } = await api.POST("/auth/register", {
    body: { name: "Ana Gomez", email: `ana-cjs-${Date.now()}@example.com`, password: "walk-in-cooler-pantry-9", orgName: "Harborview Kitchens" },
  });
  token = session.accessToken;
  const orgId = session.user.memberships[0].orgId;
  const { data: site, response } = await api.POST("/orgs/{orgId}/sites", {
    params: { path: { orgId } },
    body: { name: "Main Kitchen", timezone: "America/New_York" },
  });
  for (let i = 1; i <= 3; i++) {
    await api.POST("/orgs/{orgId}/devices", { params: { path: { orgId } }, body: { name: `Screen ${i}`, kind: "wallboard_boh", siteId: site.id } });
  }
  const names = [];
  for await (const device of api.paginate("/orgs/{orgId}/devices", { params: { path: { orgId }, query: { limit: 2 } } })) {
    names.push(device.name);
  }
  let error;
  try {
    await api.GET("/orgs/{orgId}/sites/{siteId}", { params: { path: { orgId, siteId: "0192f3a4-0000-7000-8000-0000000000ff" } } });
  } catch (e) {
    if (e instanceof SousApiError) error = { status: e.status, code: e.code };
  }
  console.log(JSON.stringify({ location: response.headers.get("location"), names, error }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
