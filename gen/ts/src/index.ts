// @sous/api-client: a thin typed client for the Sous API on openapi-fetch. The types come from
// the published contract (schema.d.ts, generated); this file adds what every frontend writes
// anyway: the base URL, the credential on every request, an expired access token refreshed once
// for all the calls that found it expired, errors as exceptions carrying the stable `code`, and
// an iterator over paged lists that follows the `Link` header.
import createFetchClient from "openapi-fetch";
import type { Client, ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "../schema.js";

export type { components, operations, paths };
export type Schemas = components["schemas"];
/** The stable machine-readable error codes; branch on these, never on `message`. */
export type ErrorCode = components["schemas"]["ErrorCode"];

/** A credential, or a function that returns the current one (e.g. after a refresh). */
export type Credential = string | undefined | (() => string | undefined | Promise<string | undefined>);

/** A session: what register, login and refresh answer. */
export type Session = components["schemas"]["Session"];

export interface SousClientOptions {
  /** The API's base URL, with `/v1`: e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  /** A session's access token, sent as `Authorization: Bearer …`. */
  token?: Credential;
  /**
   * The session's refresh token. With `token`, a call answered 401 `token_expired` exchanges it
   * (`POST /auth/refresh`) and is sent again with the new access token. Calls that find the
   * token expired at the same time share one exchange, since a refresh token is single use.
   * From then on the client sends the new tokens; `onSession` hears of each new session, to
   * keep it (the refresh token of the old one no longer works).
   */
  refreshToken?: Credential;
  /** Called with every session the client obtained by refreshing. */
  onSession?: (session: Session) => void | Promise<void>;
  /** An API key, sent as `x-api-key` (the endpoints that take one). */
  apiKey?: Credential;
  /** A paired device's token, sent as `x-device-token` (`/device/state`, readings, board images). */
  deviceToken?: Credential;
  /** A fetch implementation; the global one by default. */
  fetch?: ClientOptions["fetch"];
}

/** A non-2xx answer: the HTTP status and the error body's fields. */
export class SousApiError extends Error {
  readonly status: number;
  /** The stable code (`not_found`, `rate_limited`, …); `unknown` when the body had none. */
  readonly code: ErrorCode | "unknown";
  readonly body: components["schemas"]["Error"] | undefined;
  readonly requestId: string | null;
  /** Seconds to wait, from `Retry-After` on 429 and 503. */
  readonly retryAfter: number | null;

  constructor(response: Response, body: unknown) {
    const err = isErrorBody(body) ? body : undefined;
    super(err?.error ?? `HTTP ${response.status}`);
    this.name = "SousApiError";
    this.status = response.status;
    this.code = err?.code ?? "unknown";
    this.body = err;
    this.requestId = response.headers.get("x-request-id");
    const retry = response.headers.get("retry-after");
    this.retryAfter = retry === null ? null : Number(retry);
  }
}

function isErrorBody(v: unknown): v is components["schemas"]["Error"] {
  return typeof v === "object" && v !== null && "error" in v && "statusCode" in v;
}

async function resolve(c: Credential): Promise<string | undefined> {
  return typeof c === "function" ? c() : c;
}

/** The GET paths that answer a JSON array: the lists, which page with `limit` and `cursor`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends {
    get: { responses: { 200: { content: { "application/json": unknown[] } } } };
  }
    ? P
    : never;
}[keyof paths];

/** One element of a list path's page. */
export type ListItem<P extends ListPath> = paths[P] extends {
  get: { responses: { 200: { content: { "application/json": (infer I)[] } } } };
}
  ? I
  : never;

type GetInit<P extends ListPath> = paths[P] extends { get: { parameters: infer Params } }
  ? { params: Params }
  : never;

export interface SousClient extends Client<paths> {
  /**
   * Every item of a paged list, fetching the next page from the `Link: <…>; rel="next"` header
   * only as the loop asks for more.
   */
  paginate<P extends ListPath>(path: P, init: GetInit<P>): AsyncGenerator<ListItem<P>, void, undefined>;
}

/** The URL of `rel="next"` in a Link header, or null. */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!m) continue;
    for (const param of (m[2] ?? "").split(";")) {
      const [name, value] = param.split("=");
      const rels = (value ?? "").trim().replace(/^"|"$/g, "").split(/\s+/);
      if (name?.trim().toLowerCase() === "rel" && rels.includes("next")) return m[1] ?? null;
    }
  }
  return null;
}

export function createSousClient(options: SousClientOptions): SousClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? globalThis.fetch;

  // The session the client obtained by refreshing; it takes over from options.token.
  let refreshed: { accessToken: string; refreshToken: string } | undefined;
  let exchange: Promise<string> | undefined;

  async function accessToken(): Promise<string | undefined> {
    return refreshed?.accessToken ?? (await resolve(options.token));
  }

  // refresh exchanges the refresh token once for every caller waiting on it.
  function refresh(): Promise<string> {
    exchange ??= (async () => {
      const refreshToken = refreshed?.refreshToken ?? (await resolve(options.refreshToken));
      const response = await fetchImpl(
        new Request(baseUrl + "/auth/refresh", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ refreshToken }),
        }),
      );
      if (!response.ok) throw await failure(response);
      const session = (await response.json()) as Session;
      refreshed = { accessToken: session.accessToken, refreshToken: session.refreshToken };
      await options.onSession?.(session);
      return session.accessToken;
    })().finally(() => {
      exchange = undefined;
    });
    return exchange;
  }

  async function authorize(headers: Headers): Promise<string | undefined> {
    const token = await accessToken();
    if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
    const key = await resolve(options.apiKey);
    if (key && !headers.has("x-api-key")) headers.set("x-api-key", key);
    const device = await resolve(options.deviceToken);
    if (device && !headers.has("x-device-token")) headers.set("x-device-token", device);
    return token;
  }

  async function expired(response: Response): Promise<boolean> {
    if (response.status !== 401) return false;
    try {
      const body: unknown = await response.clone().json();
      return isErrorBody(body) && body.code === "token_expired";
    } catch {
      return false;
    }
  }

  // send adds the credentials and, when the access token has expired and a refresh token was
  // given, refreshes (or waits for the refresh under way) and sends the request once more.
  async function send(request: Request): Promise<Response> {
    const retry = options.refreshToken === undefined ? undefined : request.clone();
    const sent = await authorize(request.headers);
    const response = await fetchImpl(request);
    if (!retry || !sent || !(await expired(response))) return response;
    const current = await accessToken();
    // Another call may have refreshed since this one was sent: use its token, refresh once.
    const token = current !== undefined && current !== sent ? current : await refresh();
    retry.headers.set("authorization", `Bearer ${token}`);
    await authorize(retry.headers);
    return fetchImpl(retry);
  }

  const client = createFetchClient<paths>({ baseUrl, fetch: send });

  async function failure(response: Response): Promise<SousApiError> {
    let body: unknown;
    try {
      body = await response.clone().json();
    } catch {
      body = undefined;
    }
    return new SousApiError(response, body);
  }

  client.use({
    async onResponse({ response }) {
      if (!response.ok && response.status !== 304) throw await failure(response);
      return response;
    },
  });

  async function* paginate<P extends ListPath>(path: P, init: GetInit<P>): AsyncGenerator<ListItem<P>, void, undefined> {
    // openapi-fetch types each path's init exactly; P is one of them, which TypeScript cannot
    // see through the mapped type, hence the widening here.
    const get = client.GET as unknown as (p: string, i: unknown) => Promise<{ data?: unknown; response: Response }>;
    const first = await get(path, init);
    for (const item of (first.data ?? []) as ListItem<P>[]) yield item;
    let next = nextLink(first.response.headers.get("link"));
    while (next) {
      const response = await send(new Request(new URL(next, baseUrl + "/"), { headers: { accept: "application/json" } }));
      if (!response.ok) throw await failure(response);
      for (const item of (await response.json()) as ListItem<P>[]) yield item;
      next = nextLink(response.headers.get("link"));
    }
  }

  return Object.assign(client, { paginate });
}

export default createSousClient;
