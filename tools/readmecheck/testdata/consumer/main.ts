// A frontend's use of @sous/api-client, installed from the repository path. The readmecheck
// tests compile it with tsc against the package's types and run it with node against a server.
import { createSousClient, SousApiError } from "@sous/api-client";

declare const process: { env: Record<string, string | undefined> };

const baseUrl = process.env.SOUS_API ?? "http://localhost:8080/v1";
let token: string | undefined;
const api = createSousClient({ baseUrl, token: () => token });

const { data: session, response } = await api.POST("/auth/register", {
  body: {
    name: "Ana Gomez",
    email: `ana-${Date.now()}@example.com`,
    password: "walk-in-cooler-pantry-9",
    orgName: "Harborview Kitchens",
  },
});
if (!session) throw new Error("no session");
token = session.accessToken;
const orgId = session.user.memberships[0]!.orgId;

const { data: site } = await api.POST("/orgs/{orgId}/sites", {
  params: { path: { orgId } },
  body: { name: "Main Kitchen", timezone: "America/New_York" },
});
for (let i = 1; i <= 5; i++) {
  await api.POST("/orgs/{orgId}/devices", {
    params: { path: { orgId } },
    body: { name: `Screen ${i}`, kind: "wallboard_boh", siteId: site!.id },
  });
}

// Two devices a page: the iterator follows Link twice.
const names: string[] = [];
for await (const device of api.paginate("/orgs/{orgId}/devices", { params: { path: { orgId }, query: { limit: 2 } } })) {
  names.push(device.name);
}

let error: { status: number; code: string } | undefined;
try {
  await api.GET("/orgs/{orgId}/sites/{siteId}", {
    params: { path: { orgId, siteId: "0192f3a4-0000-7000-8000-0000000000ff" } },
  });
} catch (e) {
  if (e instanceof SousApiError) error = { status: e.status, code: e.code };
}

console.log(JSON.stringify({ location: response.headers.get("location"), names, error }));
