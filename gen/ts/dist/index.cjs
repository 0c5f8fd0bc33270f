"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.SousApiError = void 0;
exports.nextLink = nextLink;
exports.createSousClient = createSousClient;
// @sous/api-client: a thin typed client for the Sous API on openapi-fetch. The types come from
// the published contract (schema.d.ts, generated); this file adds what every frontend writes
// anyway: the base URL, the credential on every request, an expired access token refreshed once
// for all the calls that found it expired, errors as exceptions carrying the stable `code`, and
// an iterator over paged lists that follows the `Link` header.
const openapi_fetch_1 = __importDefault(require("openapi-fetch"));
/** A non-2xx answer: the HTTP status and the error body's fields. */
class SousApiError extends Error {
    status;
    /** The stable code (`not_found`, `rate_limited`, …); `unknown` when the body had none. */
    code;
    body;
    requestId;
    /** Seconds to wait, from `Retry-After` on 429 and 503. */
    retryAfter;
    constructor(response, body) {
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
exports.SousApiError = SousApiError;
function isErrorBody(v) {
    return typeof v === "object" && v !== null && "error" in v && "statusCode" in v;
}
async function resolve(c) {
    return typeof c === "function" ? c() : c;
}
/** The URL of `rel="next"` in a Link header, or null. */
function nextLink(link) {
    if (!link)
        return null;
    for (const part of link.split(/,(?=\s*<)/)) {
        const m = /^\s*<([^>]*)>(.*)$/.exec(part);
        if (!m)
            continue;
        for (const param of (m[2] ?? "").split(";")) {
            const [name, value] = param.split("=");
            const rels = (value ?? "").trim().replace(/^"|"$/g, "").split(/\s+/);
            if (name?.trim().toLowerCase() === "rel" && rels.includes("next"))
                return m[1] ?? null;
        }
    }
    return null;
}
function createSousClient(options) {
    const baseUrl = options.baseUrl.replace(/\/+$/, "");
    const fetchImpl = options.fetch ?? globalThis.fetch;
    // The session the client obtained by refreshing; it takes over from options.token.
    let refreshed;
    let exchange;
    async function accessToken() {
        return refreshed?.accessToken ?? (await resolve(options.token));
    }
    // refresh exchanges the refresh token once for every caller waiting on it.
    function refresh() {
        exchange ??= (async () => {
            const refreshToken = refreshed?.refreshToken ?? (await resolve(options.refreshToken));
            const response = await fetchImpl(new Request(baseUrl + "/auth/refresh", {
                method: "POST",
                headers: { "content-type": "application/json", accept: "application/json" },
                body: JSON.stringify({ refreshToken }),
            }));
            if (!response.ok)
                throw await failure(response);
            const session = (await response.json());
            refreshed = { accessToken: session.accessToken, refreshToken: session.refreshToken };
            await options.onSession?.(session);
            return session.accessToken;
        })().finally(() => {
            exchange = undefined;
        });
        return exchange;
    }
    async function authorize(headers) {
        const token = await accessToken();
        if (token && !headers.has("authorization"))
            headers.set("authorization", `Bearer ${token}`);
        const key = await resolve(options.apiKey);
        if (key && !headers.has("x-api-key"))
            headers.set("x-api-key", key);
        const device = await resolve(options.deviceToken);
        if (device && !headers.has("x-device-token"))
            headers.set("x-device-token", device);
        return token;
    }
    async function expired(response) {
        if (response.status !== 401)
            return false;
        try {
            const body = await response.clone().json();
            return isErrorBody(body) && body.code === "token_expired";
        }
        catch {
            return false;
        }
    }
    // send adds the credentials and, when the access token has expired and a refresh token was
    // given, refreshes (or waits for the refresh under way) and sends the request once more.
    async function send(request) {
        const retry = options.refreshToken === undefined ? undefined : request.clone();
        const sent = await authorize(request.headers);
        const response = await fetchImpl(request);
        if (!retry || !sent || !(await expired(response)))
            return response;
        const current = await accessToken();
        // Another call may have refreshed since this one was sent: use its token, refresh once.
        const token = current !== undefined && current !== sent ? current : await refresh();
        retry.headers.set("authorization", `Bearer ${token}`);
        await authorize(retry.headers);
        return fetchImpl(retry);
    }
    const client = (0, openapi_fetch_1.default)({ baseUrl, fetch: send });
    async function failure(response) {
        let body;
        try {
            body = await response.clone().json();
        }
        catch {
            body = undefined;
        }
        return new SousApiError(response, body);
    }
    client.use({
        async onResponse({ response }) {
            if (!response.ok && response.status !== 304)
                throw await failure(response);
            return response;
        },
    });
    async function* paginate(path, init) {
        // openapi-fetch types each path's init exactly; P is one of them, which TypeScript cannot
        // see through the mapped type, hence the widening here.
        const get = client.GET;
        const first = await get(path, init);
        for (const item of (first.data ?? []))
            yield item;
        let next = nextLink(first.response.headers.get("link"));
        while (next) {
            const response = await send(new Request(new URL(next, baseUrl + "/"), { headers: { accept: "application/json" } }));
            if (!response.ok)
                throw await failure(response);
            for (const item of (await response.json()))
                yield item;
            next = nextLink(response.headers.get("link"));
        }
    }
    return Object.assign(client, { paginate });
}
exports.default = createSousClient;
