package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// ReadinessCheck reports whether the database answers, takes writes, and its migrations are
// current.
type ReadinessCheck func(ctx context.Context) error

// registerHealth adds /healthz (the process is up) and /readyz (it can serve: database reachable
// and writable, migrations current). They sit outside /v1: they are for load balancers, not API
// clients. Why the replica is not ready goes to the log only: the driver's errors name the
// database user and hosts, which a load balancer's probe has no business seeing.
func registerHealth(e *echo.Echo, ready ReadinessCheck, logger *slog.Logger) {
	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	e.GET("/readyz", func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			logger.WarnContext(ctx, "not ready", "err", err.Error(),
				"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
			return c.JSON(http.StatusServiceUnavailable, map[string]any{
				"status": "unavailable", "error": "database unavailable", "statusCode": http.StatusServiceUnavailable,
			})
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	})
}
