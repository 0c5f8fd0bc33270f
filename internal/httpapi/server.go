// Package httpapi assembles the HTTP server: middleware in the order the design fixes, the
// spec-driven validator and policy, every domain's handlers, and the one error renderer.
package httpapi

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/gen"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apikeys"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/catering"
	"github.com/sous-app/sous/internal/clinical"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/idempotency"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/orgs"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/public"
	"github.com/sous-app/sous/internal/purchasing"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/realtime"
	"github.com/sous-app/sous/internal/records"
	"github.com/sous-app/sous/internal/sensors"
	"github.com/sous-app/sous/internal/surveys"
	"github.com/sous-app/sous/internal/tasks"
	"github.com/sous-app/sous/internal/trayline"
	"github.com/sous-app/sous/internal/web"
	"github.com/sous-app/sous/internal/webhooks"
	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// errShuttingDown is why a replica that received SIGTERM is not ready.
var errShuttingDown = errors.New("shutting down")

// Server is the strict server: every domain's handlers, embedded.
type Server struct {
	*authHandlers
	*orgsHandlers
	*apiKeyHandlers
	*auditHandlers
	*webhookHandlers
	*publicHandlers
	*devicesHandlers
	*clinicalHandlers
	*alertsHandlers
	*inventoryHandlers
	*purchasingHandlers
	*kitchenHandlers
	*traylineHandlers
	*cateringHandlers
	*surveysHandlers
	*tasksHandlers
	*recordsHandlers
	*sensorsHandlers
	*foodsHandlers
	*metaHandlers
}

// Aliases give each domain's Handlers a distinct embedded field name.
type (
	authHandlers       = auth.Handlers
	orgsHandlers       = orgs.Handlers
	apiKeyHandlers     = apikeys.Handlers
	auditHandlers      = audit.Handlers
	devicesHandlers    = devices.Handlers
	webhookHandlers    = webhooks.Handlers
	publicHandlers     = public.Handlers
	clinicalHandlers   = clinical.Handlers
	alertsHandlers     = alerts.Handlers
	cateringHandlers   = catering.Handlers
	surveysHandlers    = surveys.Handlers
	tasksHandlers      = tasks.Handlers
	inventoryHandlers  = inventory.Handlers
	purchasingHandlers = purchasing.Handlers
	recordsHandlers    = records.Handlers
	kitchenHandlers    = kitchen.Handlers
	traylineHandlers   = trayline.Handlers
	sensorsHandlers    = sensors.Handlers
	foodsHandlers      = foods.Handlers
)

var _ api.StrictServerInterface = (*Server)(nil)

// Deps are the infrastructure the server is assembled from; New builds every domain on them.
type Deps struct {
	Config config.Config
	Logger *slog.Logger
	// AccessLog receives one JSON line per request (nil: none); serve gives it a logbuf.Writer
	// on standard output.
	AccessLog io.Writer
	Pool      *pgxpool.Pool
	// Lookups runs the plan-stable reads behind every authenticated request (pg.OpenLookups on
	// Pool); the caller closes it after the server stops.
	Lookups    *pg.Lookups
	Clock      clock.Clock
	SigningKey ed25519.PrivateKey
	// HashParams overrides argon2id's cost (tests only); nil means OWASP's parameters.
	HashParams *auth.HashParams
	// HashSlots overrides how many argon2id computations run at once (tests only); 0 sizes it
	// from the CPUs and the memory cost.
	HashSlots int
	// HashQueueLimit and HashQueueShare override the bound on password operations waiting for a
	// slot and one client address's share of it (tests only); 0 keeps the server's constants.
	HashQueueLimit, HashQueueShare int
	// OnPasswordVerify is called before every password verification (tests count them).
	OnPasswordVerify func()
	// OnPasswordQueued is called when a password operation joins the queue (tests wait on it).
	OnPasswordQueued func()
	// Hub delivers realtime hints to the device WebSockets this replica serves. The caller runs
	// it (one per process) and stops it on shutdown, which closes the sockets. Nil: the
	// WebSocket answers 500 and devices rely on polling.
	Hub *realtime.Hub
	// WebhookResolver looks up webhook host names when a subscription's URL is set; nil is the
	// system resolver (tests answer from a table).
	WebhookResolver delivery.Resolver
	// Tracing makes a server span per request (the global tracer provider is set up).
	Tracing bool
	// Draining, once true, makes /readyz answer 503: the server is shutting down.
	Draining *atomic.Bool
}

// LoadSpec parses the published bundle embedded in the binary. It is read from the bundle's own
// bytes rather than oapi-codegen's copy, which renames operationIds to Go names.
func LoadSpec() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(gen.OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("load embedded spec: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("embedded spec is invalid: %w", err)
	}
	return doc, nil
}

// New builds the API's HTTP handler: the Echo router and its middleware, behind headAsGet.
func New(d Deps) (http.Handler, error) {
	DefineFormats()
	doc, err := SharedSpec()
	if err != nil {
		return nil, err
	}
	meta, err := newMetaHandlers()
	if err != nil {
		return nil, err
	}
	routing := *doc
	routing.Servers = openapi3.Servers{{URL: BasePath}}
	ops := indexOperations(&routing)
	for _, op := range ops {
		if op.jsonLimitsErr != nil {
			return nil, op.jsonLimitsErr
		}
	}

	hl7Limit := d.Config.HL7BodyLimit
	if hl7Limit == "" {
		hl7Limit = config.DefaultHL7BodyLimit
	}
	limits, err := newBodyLimits(ops, d.Config.BodyLimit, hl7Limit)
	if err != nil {
		return nil, err
	}
	var bodyMemory int64
	if d.Config.BodyMemory != "" {
		if bodyMemory, err = config.ParseSize(d.Config.BodyMemory); err != nil {
			return nil, fmt.Errorf("body memory %q: %w", d.Config.BodyMemory, err)
		}
	}
	budget := newBodyBudget(ops, limits, bodyMemory)
	publicURL := d.Config.PublicURL
	if publicURL == "" {
		publicURL = config.DefaultPublicURL(d.Config.Addr)
	}

	limiter := ratelimit.New(d.Pool, d.Clock)
	authSvc, err := auth.NewService(auth.Config{
		Pool: d.Pool, Lookups: d.Lookups, Clock: d.Clock, SigningKey: d.SigningKey, Limiter: limiter, HashParams: d.HashParams,
		HashSlots: d.HashSlots, QueueLimit: d.HashQueueLimit, QueueShare: d.HashQueueShare,
		OnVerify: d.OnPasswordVerify, OnQueued: d.OnPasswordQueued,
		RegisterRule: ratelimit.Rule{Limit: d.Config.RegisterRate.Count, Window: d.Config.RegisterRate.Window},
	})
	if err != nil {
		return nil, err
	}
	keys := apikeys.NewHandlers(d.Pool, d.Clock)
	devs := devices.NewHandlers(devices.Deps{Pool: d.Pool, Clock: d.Clock, Limiter: limiter, Hub: d.Hub, Logger: d.Logger, Kitchen: kitchen.NewScreens(d.Pool), Trays: trayline.NewScreens(d.Pool), Temperatures: sensors.NewScreens(d.Pool)})
	authn := Authenticators{Bearer: authSvc.Authenticate, APIKey: keys.Authenticate, Device: devs.Authenticate}
	authorizer := authz.NewAuthorizer(d.Lookups, d.Clock)
	ready := func(ctx context.Context) error {
		if d.Draining != nil && d.Draining.Load() {
			return errShuttingDown
		}
		if err := pg.Writable(ctx, d.Pool); err != nil {
			return err
		}
		current, err := pg.MigrationStatus(ctx, d.Pool, migrations.FS)
		if err != nil {
			return err
		}
		if !current {
			return errors.New("database migrations are not current")
		}
		return nil
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorRenderer(d.Logger, ops)
	e.IPExtractor = ipExtractor(d.Config.TrustedProxies)

	obs := newObserver(&routing, d.Tracing) // metrics and traces (observe.go)
	// Paths in logs and spans hide secret segments (capability tokens, tag codes).
	redactor := newPathRedactor(&routing)
	obs.redact = redactor
	e.Use(builtOnce(
		obs.middleware,
		requestID(),
		accessLog(d.AccessLog, d.Tracing, redactor),
		recoverPanics(d.Logger),
		cors(d.Config.CORSOrigins),
		// The deadline, the request's facts and its rate-limit quota, in one copy of the request.
		requestScope(scopeConfig{
			general: d.Config.RequestTimeout, hl7: d.Config.HL7RequestTimeout,
			hl7Route: ops.route("ingestHl7"), socketRoute: BasePath + "/board/ws", publicURL: publicURL, ops: ops,
		}),
		// A response waits at most SOUS_WRITE_IDLE_TIMEOUT on a client that takes none of it.
		writeDeadlines(cmp.Or(d.Config.WriteIdleTimeout, config.DefaultWriteIdleTimeout)),
		// Body limits: the server's, an operation's x-body-limit, the HL7 ingest's SOUS_HL7_BODY_LIMIT.
		limits.middleware,
		// The large bodies (uploads, imports, ingests) share a memory budget: past it they wait,
		// then 503 service_busy, instead of together taking more memory than the replica has.
		budget.middleware,
		hashIdempotentBody(ops),
		negotiate(ops),
		location(ops),
		// Reads a JSON body whole, keeps its bytes as sent for refuseHostileStrings (the validator
		// may re-encode it), and refuses a shape over its limits before anything decodes it.
		readJSONBody(ops),
		validateRequests(&routing, &echomw.Options{
			SilenceServersWarning: true,
			// Routes outside the spec (health, docs) and unknown paths skip validation: Echo
			// answers those 404 or 405 itself, and the renderer makes them JSON.
			Skipper: func(c echo.Context) bool { return ops.of(c) == nil },
			Options: openapi3filter.Options{
				MultiError:         true,
				AuthenticationFunc: authn.authenticate,
			},
			MultiErrorHandler: func(me openapi3.MultiError) *echo.HTTPError {
				return &echo.HTTPError{Code: http.StatusBadRequest, Message: "request validation failed", Internal: me}
			},
		}, authn),
		// NUL and invalid UTF-8 in any string: 400 naming the field, not a 500 from PostgreSQL.
		refuseHostileStrings(ops, headerParams(&routing)),
		bindStructuredJSON,
		// A deadline spent reading and checking the body is not the database's doing: 503
		// service_unavailable, before the policy's lookups would blame it.
		outOfTime,
		policy(ops, authorizer),
		idempotent(ops, idempotency.NewStore(d.Pool, d.Clock), d.Logger),
	))

	// Test deliveries are sent by the request; the dispatcher that sends every other delivery
	// runs beside the server (cmd/sous serve), on every replica.
	dispatcher := webhooks.NewDispatcher(webhooks.DispatcherOptions{
		Pool: d.Pool, Clock: d.Clock, Logger: d.Logger, AllowPrivate: d.Config.WebhookAllowPrivate,
		Resolver: d.WebhookResolver,
	})
	links := capability.NewResolver(d.Pool, d.Clock, limiter)
	// Sensor alerts make their follow-up task (tasks), told by alerts through a hook.
	alerts.SetOpenHook(tasks.AlertHook{})
	// Inspection findings make their corrective tasks (tasks), asked by records through a hook.
	records.SetFindingTasks(tasks.FindingTasks{})
	// Scan tags may name equipment (records) by id.
	public.SetEquipmentLookup(records.EquipmentLookup{})
	// Census changes move and re-check queued tray tickets (trayline), told by clinical through a hook.
	clinical.SetCensusHook(trayline.CensusHook{Clock: d.Clock})
	kitchen.SetDietHook(trayline.MenuDiets{})
	inv := inventory.NewHandlers(d.Pool, d.Clock)
	server := &Server{
		authHandlers:       auth.NewHandlers(authSvc),
		orgsHandlers:       orgs.NewHandlers(d.Pool, d.Lookups, d.Clock),
		apiKeyHandlers:     keys,
		auditHandlers:      audit.NewHandlers(d.Pool),
		webhookHandlers:    webhooks.NewHandlers(d.Pool, d.Clock, dispatcher, d.Config.WebhookAllowPrivate),
		publicHandlers:     public.NewHandlers(d.Pool, d.Clock, limiter, d.Config.WebURL).WithStorageLocations(inv),
		devicesHandlers:    devs,
		clinicalHandlers:   clinical.NewHandlers(d.Pool, d.Clock, d.Logger),
		alertsHandlers:     alerts.NewHandlers(d.Pool, d.Clock),
		cateringHandlers:   catering.NewHandlers(d.Pool, d.Clock, links, d.Config.WebURL),
		surveysHandlers:    surveys.NewHandlers(d.Pool, d.Clock, links, d.Config.WebURL),
		tasksHandlers:      tasks.NewHandlers(d.Pool, d.Clock),
		inventoryHandlers:  inv,
		purchasingHandlers: purchasing.NewHandlers(d.Pool, d.Clock),
		recordsHandlers:    records.NewHandlers(d.Pool, d.Clock, links, d.Config.WebURL),
		kitchenHandlers:    kitchen.NewHandlers(d.Pool, d.Clock),
		traylineHandlers:   trayline.NewHandlers(d.Pool, d.Clock),
		sensorsHandlers:    sensors.NewHandlers(d.Pool, d.Clock, d.Config.ReadingsRetentionMonths),
		foodsHandlers:      foods.NewHandlers(d.Pool, d.Clock),
		metaHandlers:       meta,
	}
	// A scan answers the work at its tag: tasks, work orders, the live temperature, the open count.
	server.publicHandlers.WithFloor(public.Floor{Tasks: server.tasksHandlers, Equipment: server.recordsHandlers,
		Temperatures: server.sensorsHandlers, Counts: server.inventoryHandlers})
	api.RegisterHandlersWithBaseURL(e, api.NewStrictHandler(server, nil), BasePath)
	// The WebSocket upgrade is in the spec (so the validator authenticates its query token and
	// the policy requires a device) but not in the generated router: a strict handler cannot
	// hijack the connection.
	e.GET(BasePath+"/board/ws", func(c echo.Context) error {
		return devs.ServeSocket(c.Response(), c.Request())
	})
	registerHealth(e, ready, d.Logger)
	registerDocs(e)
	if d.Config.HostedPages {
		pages, err := web.New(web.Deps{
			Quotes: server.cateringHandlers, Surveys: server.surveysHandlers, Inspections: server.recordsHandlers,
			Logger: d.Logger, Validate: schemaValidator(doc),
		})
		if err != nil {
			return nil, err
		}
		pages.Register(e)
	}
	obs.addRoutes(e.Routes())
	redactor.addRoutes(e.Routes())
	return securityHeaders(headAsGet(e)), nil
}
