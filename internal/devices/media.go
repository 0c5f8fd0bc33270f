package devices

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/realtime"
)

// MaxMediaSize is the largest image accepted. The route's body limit (x-body-limit in the spec)
// leaves room for the multipart framing around it.
const MaxMediaSize = 5 << 20

// MediaCacheControl is how an image stored by its content's hash is cached: privately (it is a
// tenant's) and for good (its URL changes with its bytes). Board media, task and work order
// photos answer with it.
const MediaCacheControl = "private, max-age=31536000, immutable"

// MaxPhotos bounds the photos one task or one work order keeps (each at most MaxMediaSize).
const MaxPhotos = 20

func (h *Handlers) UploadMedia(ctx context.Context, req api.UploadMediaRequestObject) (api.UploadMediaResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	up, err := readUpload(req.Body)
	if err != nil {
		return nil, err
	}
	contentType, err := inspectImage(up.data, up.declared)
	if err != nil {
		return nil, err
	}
	if up.siteID == nil && a.Scoped() {
		return nil, apierr.Forbidden("An image for every site needs access to every site; send the siteId of one of yours")
	}
	sum := sha256.Sum256(up.data)
	now := h.clock.Now()
	creator := a.UserID()
	var row db.CreateMediaRow
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		site := uuid.Nil
		if up.siteID != nil {
			s, err := loadSite(ctx, q, a, *up.siteID)
			if err != nil {
				return err
			}
			site = s.ID
		}
		row, err = q.CreateMedia(ctx, db.CreateMediaParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: up.siteID, ContentType: contentType, Size: int32(len(up.data)),
			Sha256: sum[:], Filename: up.filename, Data: up.data, CreatedBy: &creator, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, site, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UploadMedia201JSONResponse{Body: toAPIMedia(row.ID, row.SiteID, row.ContentType, row.Size, row.Sha256, row.Filename, row.CreatedAt)}, nil
}

// upload is what a media upload's parts carry.
type upload struct {
	data     []byte
	filename *string
	declared string
	siteID   *uuid.UUID
}

// readUpload reads the parts "file" (readFilePart) and "siteId"; other parts are skipped.
func readUpload(r *multipart.Reader) (upload, error) {
	var up upload
	var err error
	up.data, up.filename, up.declared, err = readFilePart(r, func(name string, part io.Reader) error {
		if name != "siteId" {
			_, _ = io.Copy(io.Discard, part)
			return nil
		}
		raw, err := io.ReadAll(io.LimitReader(part, 100))
		if err != nil {
			return apierr.InvalidField("siteId", "could not be read")
		}
		id, err := uuid.Parse(strings.TrimSpace(string(raw)))
		if err != nil {
			return apierr.InvalidField("siteId", "must be a UUID")
		}
		up.siteID = &id
		return nil
	})
	return up, err
}

// readFilePart reads the one part named "file", at most MaxMediaSize bytes, with its file name
// and the Content-Type it declares; other parts go to other.
func readFilePart(r *multipart.Reader, other func(name string, part io.Reader) error) (data []byte, filename *string, declared string, err error) {
	if r == nil {
		return nil, nil, "", apierr.InvalidField("file", "is required")
	}
	var found bool
	for {
		part, perr := r.NextPart()
		if errors.Is(perr, io.EOF) {
			break
		}
		if perr != nil {
			return nil, nil, "", apierr.InvalidField("body", "must be multipart/form-data")
		}
		if part.FormName() != "file" {
			if err := other(part.FormName(), part); err != nil {
				return nil, nil, "", err
			}
			continue
		}
		if found {
			return nil, nil, "", apierr.InvalidField("file", "send one file per upload")
		}
		found = true
		data, err = io.ReadAll(io.LimitReader(part, MaxMediaSize+1))
		if err != nil {
			return nil, nil, "", apierr.InvalidField("file", "could not be read")
		}
		if len(data) > MaxMediaSize {
			return nil, nil, "", &apierr.Error{Kind: apierr.KindTooLarge, Message: "The file is larger than 5 MiB"}
		}
		filename = cleanFilename(part.FileName())
		declared = part.Header.Get("Content-Type")
	}
	switch {
	case !found:
		return nil, nil, "", apierr.InvalidField("file", "is required")
	case len(data) == 0:
		return nil, nil, "", apierr.InvalidField("file", "must not be empty")
	}
	return data, filename, declared, nil
}

// cleanFilename keeps a file name for display: no control characters, at most 200 characters.
func cleanFilename(name string) *string {
	name = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, name))
	if name == "" {
		return nil
	}
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	return &name
}

func toAPIMedia(id uuid.UUID, siteID *uuid.UUID, contentType string, size int32, sum []byte, filename *string, createdAt time.Time) api.Media {
	return api.Media{
		Key: id, SiteId: siteID, ContentType: api.MediaContentType(contentType), Size: int(size),
		Sha256: hex.EncodeToString(sum), Filename: filename, CreatedAt: createdAt,
	}
}

type mediaCursor struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}

func (h *Handlers) ListMedia(ctx context.Context, req api.ListMediaRequestObject) (api.ListMediaResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListMediaParams{OrgID: req.OrgId, Scope: a.SiteScope(), MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c mediaCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListMedia(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListMedia200JSONResponse{Body: make([]api.Media, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListMediaRow) any { return mediaCursor{At: last.CreatedAt, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, toAPIMedia(r.ID, r.SiteID, r.ContentType, r.Size, r.Sha256, r.Filename, r.CreatedAt))
	}
	return out, nil
}

func (h *Handlers) DeleteMedia(ctx context.Context, req api.DeleteMediaRequestObject) (api.DeleteMediaResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		// A site-limited admin deletes only their sites' images: any other is "not found".
		site, err := q.DeleteMedia(ctx, db.DeleteMediaParams{OrgID: req.OrgId, ID: req.Key, Scope: a.SiteScope()})
		if pg.IsNoRows(err) {
			return apierr.NotFound("Media")
		}
		if err != nil {
			return err
		}
		// Screens showing the image lose their cast rather than a broken image.
		ids, err := q.ClearCastsOfMedia(ctx, db.ClearCastsOfMediaParams{OrgID: req.OrgId, MediaKey: req.Key.String(), Now: now})
		if err != nil {
			return err
		}
		if err := realtime.Notify(ctx, tx, ids...); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, deref(site), req.Key, now)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteMedia204Response{}, nil
}

// GetBoardMedia serves an image of the device's own organization. A key's content never changes,
// so it is cacheable for good; a matching If-None-Match skips reading the bytes.
func (h *Handlers) GetBoardMedia(ctx context.Context, req api.GetBoardMediaRequestObject) (api.GetBoardMediaResponseObject, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.Device {
		return nil, errInvalidToken
	}
	q := db.New(h.pool)
	if req.Params.IfNoneMatch != nil {
		info, err := q.GetDeviceMediaInfo(ctx, db.GetDeviceMediaInfoParams{OrgID: p.OrgID, ID: req.Key, DeviceID: p.DeviceID})
		if pg.IsNoRows(err) {
			return nil, apierr.NotFound("Media")
		}
		if err != nil {
			return nil, err
		}
		if etag := mediaETag(info.Sha256); etagMatches(*req.Params.IfNoneMatch, etag) {
			return api.GetBoardMedia304Response{Headers: api.GetBoardMedia304ResponseHeaders{ETag: &etag}}, nil
		}
	}
	m, err := q.GetMediaContent(ctx, db.GetMediaContentParams{OrgID: p.OrgID, ID: req.Key, DeviceID: p.DeviceID})
	if pg.IsNoRows(err) {
		return nil, apierr.NotFound("Media")
	}
	if err != nil {
		return nil, err
	}
	return mediaContent{contentType: m.ContentType, etag: mediaETag(m.Sha256), data: m.Data}, nil
}

func mediaETag(sum []byte) string { return `"` + hex.EncodeToString(sum) + `"` }

// mediaContent writes an image with headers that keep a browser from ever treating it as
// anything else.
type mediaContent struct {
	contentType, etag string
	data              []byte
}

func (m mediaContent) VisitGetBoardMediaResponse(w http.ResponseWriter) error {
	h := w.Header()
	h.Set("Content-Type", m.contentType)
	h.Set("Content-Length", strconv.Itoa(len(m.data)))
	h.Set("ETag", m.etag)
	h.Set("Cache-Control", MediaCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(m.data)
	return err
}

func deref(id *uuid.UUID) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return *id
}
