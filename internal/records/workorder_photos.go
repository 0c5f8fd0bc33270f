package records

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/pg"
)

var errWorkOrderPhotoNotFound = apierr.NotFound("Photo")

func workOrderPhotoToAPI(org, wo, id uuid.UUID, contentType string, size int32, filename *string, at time.Time) api.WorkOrderPhoto {
	return api.WorkOrderPhoto{
		MediaId: id, ContentType: api.WorkOrderPhotoContentType(contentType), Size: int(size), Filename: filename, CreatedAt: at,
		Url: fmt.Sprintf("/v1/orgs/%s/work-orders/%s/photos/%s", org, wo, id),
	}
}

// lockWorkOrder reads the work order for a change to its photos: 404 for one the member cannot
// see, 409 for one that is finished (its record stays as it was closed).
func lockWorkOrder(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.WorkOrder, error) {
	w, err := q.LockWorkOrder(ctx, db.LockWorkOrderParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(w.SiteID)) {
		return w, errWorkOrderNotFound
	}
	if err != nil {
		return w, err
	}
	if w.Status == woResolved || w.Status == woCancelled {
		return w, apierr.Conflict("The work order is " + w.Status + "; its photos stay as they were")
	}
	return w, nil
}

// AddWorkOrderPhoto attaches a photo of the problem, checked as task photos and board images
// are (devices.ReadImage): the image is read and refused before anything is written.
func (h *Handlers) AddWorkOrderPhoto(ctx context.Context, req api.AddWorkOrderPhotoRequestObject) (api.AddWorkOrderPhotoResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	img, err := devices.ReadImage(req.Body)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(img.Data)
	now := h.clock.Now()
	var row db.InsertWorkOrderPhotoRow
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		w, err := lockWorkOrder(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		n, err := q.CountWorkOrderPhotos(ctx, db.CountWorkOrderPhotosParams{OrgID: a.OrgID, WorkOrderID: w.ID})
		if err != nil {
			return err
		}
		if n >= devices.MaxPhotos {
			return apierr.InvalidField("file", fmt.Sprintf("the work order has %d photos already, the most it takes", devices.MaxPhotos))
		}
		row, err = q.InsertWorkOrderPhoto(ctx, db.InsertWorkOrderPhotoParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, WorkOrderID: w.ID, ContentType: img.ContentType, Size: int32(len(img.Data)),
			Sha256: sum[:], Filename: img.Filename, Data: img.Data, CreatedBy: userPtr(a), Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, w.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.AddWorkOrderPhoto201JSONResponse{
		Body: workOrderPhotoToAPI(a.OrgID, req.Id, row.ID, row.ContentType, row.Size, row.Filename, row.CreatedAt),
	}, nil
}

func (h *Handlers) GetWorkOrderPhoto(ctx context.Context, req api.GetWorkOrderPhotoRequestObject) (api.GetWorkOrderPhotoResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p, err := db.New(h.pool).GetWorkOrderPhotoContent(ctx, db.GetWorkOrderPhotoContentParams{OrgID: a.OrgID, WorkOrderID: req.Id, ID: req.MediaId})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(p.SiteID)) {
		return nil, errWorkOrderPhotoNotFound
	}
	if err != nil {
		return nil, err
	}
	cc := devices.MediaCacheControl
	return api.GetWorkOrderPhoto200ImageResponse{
		Body: bytes.NewReader(p.Data), ContentType: p.ContentType, ContentLength: int64(len(p.Data)),
		Headers: api.GetWorkOrderPhoto200ResponseHeaders{CacheControl: &cc},
	}, nil
}

func (h *Handlers) DeleteWorkOrderPhoto(ctx context.Context, req api.DeleteWorkOrderPhotoRequestObject) (api.DeleteWorkOrderPhotoResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		w, err := lockWorkOrder(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		n, err := q.DeleteWorkOrderPhoto(ctx, db.DeleteWorkOrderPhotoParams{OrgID: a.OrgID, WorkOrderID: w.ID, ID: req.MediaId})
		if err != nil {
			return err
		}
		if n == 0 {
			return errWorkOrderPhotoNotFound
		}
		return audit.RecordSite(ctx, q, a.OrgID, w.SiteID, req.MediaId, now)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteWorkOrderPhoto204Response{}, nil
}

// workOrderPhotos lists a work order's photos for GET /work-orders/{id}.
func workOrderPhotos(ctx context.Context, q *db.Queries, org, wo uuid.UUID) ([]api.WorkOrderPhoto, error) {
	rows, err := q.ListWorkOrderPhotos(ctx, db.ListWorkOrderPhotosParams{OrgID: org, WorkOrderID: wo})
	if err != nil {
		return nil, err
	}
	out := make([]api.WorkOrderPhoto, 0, len(rows))
	for _, r := range rows {
		out = append(out, workOrderPhotoToAPI(org, wo, r.ID, r.ContentType, r.Size, r.Filename, r.CreatedAt))
	}
	return out, nil
}
