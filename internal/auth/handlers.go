package auth

import (
	"context"
	"encoding/json"
	"errors"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/principal"
)

// Handlers implements the session operations of the strict server interface.
type Handlers struct {
	svc *Service
}

func NewHandlers(svc *Service) *Handlers { return &Handlers{svc: svc} }

func (h *Handlers) RegisterUser(ctx context.Context, req api.RegisterUserRequestObject) (api.RegisterUserResponseObject, error) {
	in := RegisterInput{Name: req.Body.Name, Email: string(req.Body.Email), Password: req.Body.Password}
	if req.Body.OrgName != nil {
		in.OrgName = *req.Body.OrgName
	}
	s, err := h.svc.Register(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.RegisterUser201JSONResponse{Body: toAPISession(s)}, nil
}

func (h *Handlers) Login(ctx context.Context, req api.LoginRequestObject) (api.LoginResponseObject, error) {
	s, err := h.svc.Login(ctx, req.Body.Email, req.Body.Password)
	if err != nil {
		return nil, err
	}
	return api.Login200JSONResponse{Body: toAPISession(s)}, nil
}

func (h *Handlers) RefreshSession(ctx context.Context, req api.RefreshSessionRequestObject) (api.RefreshSessionResponseObject, error) {
	s, err := h.svc.Refresh(ctx, req.Body.RefreshToken)
	if err != nil {
		return nil, err
	}
	return api.RefreshSession200JSONResponse{Body: toAPISession(s)}, nil
}

func (h *Handlers) Logout(ctx context.Context, req api.LogoutRequestObject) (api.LogoutResponseObject, error) {
	if err := h.svc.Logout(ctx, req.Body.RefreshToken); err != nil {
		return nil, err
	}
	return api.Logout204Response{}, nil
}

func (h *Handlers) ChangePassword(ctx context.Context, req api.ChangePasswordRequestObject) (api.ChangePasswordResponseObject, error) {
	p, err := userPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.svc.ChangePassword(ctx, p.UserID, req.Body.CurrentPassword, req.Body.NewPassword)
	if err != nil {
		return nil, err
	}
	return api.ChangePassword200JSONResponse(toAPISession(s)), nil
}

func (h *Handlers) GetMe(ctx context.Context, _ api.GetMeRequestObject) (api.GetMeResponseObject, error) {
	p, err := userPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	u, err := h.svc.Me(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	return meResponse{u}, nil
}

func (h *Handlers) GetJwks(ctx context.Context, _ api.GetJwksRequestObject) (api.GetJwksResponseObject, error) {
	// The JWKS comes from jwx; round-tripping through JSON keeps every key parameter.
	raw, err := json.Marshal(h.svc.tokens.PublicKeys())
	if err != nil {
		return nil, err
	}
	var out api.JWKS
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return api.GetJwks200JSONResponse(out), nil
}

// userPrincipal returns the signed-in user; API keys and devices have no user session.
func userPrincipal(ctx context.Context) (principal.Principal, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.User {
		return principal.Principal{}, apierr.Unauthenticated("Authentication required")
	}
	return p, nil
}

func toAPISession(s Session) api.Session {
	return api.Session{
		AccessToken:  s.AccessToken,
		RefreshToken: s.RefreshToken,
		ExpiresIn:    s.ExpiresIn,
		User:         ToAPIUser(s.User),
	}
}

// ToAPIUser is the spec's User with memberships.
func ToAPIUser(u UserView) api.User {
	return api.User{Id: u.ID, Email: openapi_types.Email(u.Email), Name: u.Name, Memberships: toAPIMemberships(u.Memberships)}
}

func toAPIMemberships(rows []db.ListMembershipsForUserRow) []api.Membership {
	ms := make([]api.Membership, 0, len(rows))
	for _, m := range rows {
		ms = append(ms, api.Membership{
			OrgId:       m.OrgID,
			OrgName:     m.OrgName,
			Role:        api.Role(m.Role),
			SiteIds:     m.SiteIds,
			Credentials: m.Credentials,
		})
	}
	return ms
}

// Authenticate verifies an access token for the HTTP layer.
func (s *Service) Authenticate(_ context.Context, token string) (principal.Principal, error) {
	id, _, err := s.tokens.Verify(token)
	if errors.Is(err, ErrTokenExpired) {
		return principal.Principal{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeTokenExpired)
	}
	if err != nil {
		return principal.Principal{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
	}
	return principal.Principal{Kind: principal.User, UserID: id}, nil
}
