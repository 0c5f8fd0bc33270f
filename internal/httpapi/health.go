package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// ReadinessCheck reports whether the database answers and its migrations are current.
type ReadinessCheck func(ctx context.Context) error

// registerHealth adds /healthz (the process is up) and /readyz (it can serve: database reachable,
// migrations current). They sit outside /v1: they are for load balancers, not API clients.
func registerHealth(e *echo.Echo, ready ReadinessCheck) {
	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	e.GET("/readyz", func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			return c.JSON(http.StatusServiceUnavailable, map[string]any{
				"status": "unavailable", "error": err.Error(), "statusCode": http.StatusServiceUnavailable,
			})
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	})
}
