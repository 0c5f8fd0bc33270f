package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/idempotency"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/reqinfo"
)

// IdempotencyKeyHeader is the request header of retry-safe operations: every operation that
// declares it in the spec (every POST) honours it.
const IdempotencyKeyHeader = "Idempotency-Key"

// replayedHeader marks a response replayed from the first request with the same key.
const replayedHeader = "Idempotent-Replayed"

// replayedHeaders are the response headers kept and replayed with the status and body.
var replayedHeaders = []string{echo.HeaderContentType, echo.HeaderLocation, "ETag", "Link"}

const bodyHashKey = "idempotency.bodyHash"

// hashingBody hashes the request body as it is read, so the body is hashed in the one pass the
// validator (or the handler) makes over it: an HL7 batch or an upload is never read twice.
type hashingBody struct {
	io.ReadCloser
	h   hash.Hash
	eof bool
}

func (b *hashingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// hashIdempotentBody wraps the body of a request that carries an Idempotency-Key, before the
// validator reads it.
func hashIdempotentBody(ops operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if op := ops.of(c); op != nil && op.Idempotent && req.Header.Get(IdempotencyKeyHeader) != "" {
				hb := &hashingBody{ReadCloser: req.Body, h: sha256.New()}
				req.Body = hb
				c.Set(bodyHashKey, hb)
			}
			return next(c)
		}
	}
}

// idempotent answers a retried request from the first response to its Idempotency-Key (Stripe's
// semantics). It runs after authentication and the policy, so failures before the operation
// (400, 401, 403, …) keep no key; keys are the caller's own and a replay needs the rights the
// first request ran under (idempotencyCaller), since handlers make checks of their own.
// The key is reserved in PostgreSQL before the handler runs, so concurrent requests on any
// replica get 409 while it runs; 5xx and 429 answers release it, so a retry runs again.
func idempotent(ops operations, store *idempotency.Store, logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			req := c.Request()
			op := ops.of(c)
			key := req.Header.Get(IdempotencyKeyHeader)
			if op == nil || !op.Idempotent || key == "" {
				return next(c)
			}
			reqHash, err := requestHash(c)
			if err != nil {
				return err
			}
			ctx := req.Context()
			r, stored, err := store.Begin(ctx, idempotencyCaller(c, op), key, reqHash)
			if err != nil {
				return err
			}
			if stored != nil {
				return replay(c, stored)
			}

			// From here the reservation must be completed or released, whatever happens; the
			// request's own context may be cancelled (the client went away), the outcome not.
			finish := func(res *idempotency.Response) {
				fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer cancel()
				var ferr error
				if res == nil {
					ferr = store.Release(fctx, r)
				} else {
					ferr = store.Complete(fctx, r, *res)
				}
				if ferr != nil {
					logger.ErrorContext(ctx, "idempotency: could not record the outcome", "err", ferr.Error(),
						"request_id", reqinfo.RequestID(ctx))
				}
			}
			rec := &recorder{ResponseWriter: c.Response().Writer}
			c.Response().Writer = rec
			done := false
			defer func() {
				if !done { // a panic: release the key and let the recoverer answer
					finish(nil)
				}
			}()
			if herr := next(c); herr != nil {
				c.Error(herr) // render now, through the recorder
			}
			done = true
			status := c.Response().Status
			if status >= 500 || status == http.StatusTooManyRequests || !c.Response().Committed {
				finish(nil)
				return nil
			}
			res := &idempotency.Response{Status: status, Header: http.Header{}, Body: rec.body.Bytes()}
			for _, h := range replayedHeaders {
				if v := c.Response().Header().Values(h); len(v) > 0 {
					res.Header[h] = v
				}
			}
			finish(res)
			return nil
		}
	}
}

// idempotencyCaller is whose keys a key is among, and with which rights. On an organization's
// operation: the organization and the caller in it (user, API key or device), with the member's
// role, sites and credentials, since handlers check a resource's site and credentials past the
// policy and a stored answer must not reach a caller those checks would refuse. Otherwise the
// signed-in user or device, else (public operations, sign-in) the client's address.
func idempotencyCaller(c echo.Context, op *operation) idempotency.Caller {
	ctx := c.Request().Context()
	p, ok := principal.From(ctx)
	var who string
	if ok {
		switch p.Kind {
		case principal.User:
			who = "user:" + p.UserID.String()
		case principal.Device:
			who = "device:" + p.DeviceID.String()
		case principal.APIKey:
			who = "apikey:" + p.APIKeyID.String()
		}
	}
	switch {
	case op.OrgScoped:
		// The policy ran: the caller is authenticated and a member (or a credential) of it.
		var g idempotency.Grant
		if a, ok := authz.FromContext(ctx); ok {
			g = idempotency.Grant{Role: a.Role, SiteIDs: a.SiteIDs, Credentials: a.Credentials}
		}
		return idempotency.Caller{Scope: "org:" + c.Param("orgId") + "/" + who, Grant: g}
	case who != "":
		return idempotency.Caller{Scope: who}
	}
	return idempotency.Caller{Scope: "ip:" + c.RealIP()}
}

// requestHash is what makes two requests "the same": method, path, query and body.
func requestHash(c echo.Context) ([]byte, error) {
	req := c.Request()
	hb, _ := c.Get(bodyHashKey).(*hashingBody)
	if hb == nil {
		hb = &hashingBody{ReadCloser: req.Body, h: sha256.New()}
	}
	if !hb.eof {
		// The validator did not read the body (or read part of it): read the rest now, keeping
		// it for the handler.
		rest, err := io.ReadAll(hb)
		if err != nil {
			return nil, err
		}
		if req.Body == io.ReadCloser(hb) {
			req.Body = io.NopCloser(bytes.NewReader(rest))
		}
	}
	h := sha256.New()
	h.Write([]byte(req.Method + "\x00" + req.URL.Path + "\x00" + req.URL.RawQuery + "\x00"))
	h.Write(hb.h.Sum(nil))
	return h.Sum(nil), nil
}

func replay(c echo.Context, res *idempotency.Response) error {
	h := c.Response().Header()
	for k, v := range res.Header {
		h[k] = v
	}
	h.Set(replayedHeader, "true")
	metrics.IdempotentReplays.Inc()
	c.Response().WriteHeader(res.Status)
	if len(res.Body) > 0 && c.Request().Method != http.MethodHead {
		_, err := c.Response().Write(res.Body)
		return err
	}
	return nil
}

// recorder keeps a copy of the body written through it.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}
