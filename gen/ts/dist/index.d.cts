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
export declare class SousApiError extends Error {
    readonly status: number;
    /** The stable code (`not_found`, `rate_limited`, …); `unknown` when the body had none. */
    readonly code: ErrorCode | "unknown";
    readonly body: components["schemas"]["Error"] | undefined;
    readonly requestId: string | null;
    /** Seconds to wait, from `Retry-After` on 429 and 503. */
    readonly retryAfter: number | null;
    constructor(response: Response, body: unknown);
}
/** The GET paths that answer a JSON array: the lists, which page with `limit` and `cursor`. */
export type ListPath = {
    [P in keyof paths]: paths[P] extends {
        get: {
            responses: {
                200: {
                    content: {
                        "application/json": unknown[];
                    };
                };
            };
        };
    } ? P : never;
}[keyof paths];
/** One element of a list path's page. */
export type ListItem<P extends ListPath> = paths[P] extends {
    get: {
        responses: {
            200: {
                content: {
                    "application/json": (infer I)[];
                };
            };
        };
    };
} ? I : never;
type GetInit<P extends ListPath> = paths[P] extends {
    get: {
        parameters: infer Params;
    };
} ? {
    params: Params;
} : never;
export interface SousClient extends Client<paths> {
    /**
     * Every item of a paged list, fetching the next page from the `Link: <…>; rel="next"` header
     * only as the loop asks for more.
     */
    paginate<P extends ListPath>(path: P, init: GetInit<P>): AsyncGenerator<ListItem<P>, void, undefined>;
}
/** The URL of `rel="next"` in a Link header, or null. */
export declare function nextLink(link: string | null): string | null;
export declare function createSousClient(options: SousClientOptions): SousClient;
export default createSousClient;
