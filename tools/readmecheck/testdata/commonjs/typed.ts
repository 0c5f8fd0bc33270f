// The same use from TypeScript in a CommonJS project: `import` compiles to require(), and the
// package's CommonJS types (dist/index.d.cts) type it.
import { createSousClient, SousApiError } from "@sous/api-client";
import type { Schemas } from "@sous/api-client";

declare const process: { env: Record<string, string | undefined> };

async function main(): Promise<void> {
  const baseUrl = process.env.SOUS_API ?? "http://localhost:8080/v1";
  let token: string | undefined;
  const api = createSousClient({ baseUrl, token: () => token });
  const { data: session } = await api.POST("/auth/register", {
    body: { name: "Ana Gomez", email: `ana-cjs-ts-${Date.now()}@example.com`, password: "walk-in-cooler-pantry-9", orgName: "Harborview Kitchens" },
  });
  if (!session) throw new Error("no session");
  token = session.accessToken;
  const orgId: string = session.user.memberships[0]!.orgId;
  const { data: site } = await api.POST("/orgs/{orgId}/sites", {
    params: { path: { orgId } },
    body: { name: "Main Kitchen", timezone: "America/New_York" },
  });
  const kept: Schemas["Site"] | undefined = site;
  let code: string | undefined;
  try {
    await api.GET("/orgs/{orgId}/sites/{siteId}", { params: { path: { orgId, siteId: "0192f3a4-0000-7000-8000-0000000000ff" } } });
  } catch (e) {
    if (e instanceof SousApiError) code = e.code;
  }
  console.log(JSON.stringify({ site: kept?.name, code }));
}

void main();
