// A frontend's typed use of the generated types. `tsc --noEmit` compiles this in CI, so a
// breaking change to the contract (a renamed field, a removed operation) breaks the build
// here before it breaks a client.
import type { components, operations, paths } from "../../gen/ts/schema";

type Session = components["schemas"]["Session"];
type User = components["schemas"]["User"];
type ApiError = components["schemas"]["Error"];
type ValidationError = components["schemas"]["ValidationError"];

type RegisterBody = NonNullable<paths["/auth/register"]["post"]["requestBody"]>["content"]["application/json"];
type RegisterCreated = operations["registerUser"]["responses"][201]["content"]["application/json"];
type MeOk = operations["getMe"]["responses"][200]["content"]["application/json"];
type TooMany = operations["login"]["responses"][429];

const body: RegisterBody = {
  name: "Ana Gomez",
  email: "ana@harborview-kitchens.example",
  password: "walk-in-cooler-pantry-9",
  orgName: "Harborview Kitchens",
};

function storeSession(s: RegisterCreated): Session {
  const expiresAt = Date.now() + s.expiresIn * 1000;
  void expiresAt;
  return s;
}

function orgPaths(me: MeOk): string[] {
  return me.memberships.map((m) => `/orgs/${m.orgId}/sites (${m.role}, ${m.siteIds.length} sites)`);
}

function describe(e: ApiError | ValidationError): string {
  if ("details" in e) {
    return e.details.map((d) => `${d.field}: ${d.message}`).join("; ");
  }
  return `${e.statusCode}: ${e.error}`;
}

function retryAfter(r: TooMany): string | undefined {
  const h: number | undefined = r.headers["Retry-After"];
  return h === undefined ? undefined : `${h}s`;
}

async function register(base: string): Promise<User> {
  const res = await fetch(`${base}/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    throw new Error(describe((await res.json()) as ApiError));
  }
  const session = storeSession((await res.json()) as RegisterCreated);
  orgPaths(session.user);
  return session.user;
}

export { register, retryAfter };
