package purchasing

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/pg"
)

// Limits of an order guide: larger files are refused whole.
const (
	MaxGuideBytes = 5 << 20
	MaxGuideRows  = 20000
)

var guideColumns = []string{"sku", "description", "pack", "pack_unit", "price"}

// guideRow is one data row of a guide, as read.
type guideRow struct {
	line                                   int
	sku, description, pack, packUnit, item string
	price                                  string
}

// readGuideFile reads the CSV from a multipart part `file` or from the body itself.
func readGuideFile(req api.ImportVendorGuideRequestObject) ([]byte, error) {
	var r io.Reader
	if req.MultipartBody != nil {
		for {
			part, err := req.MultipartBody.NextPart()
			if errors.Is(err, io.EOF) {
				return nil, apierr.InvalidField("file", "is missing: send the guide in the multipart part \"file\"")
			}
			if err != nil {
				return nil, apierr.InvalidField("file", "the multipart body could not be read")
			}
			if part.FormName() == "file" {
				r = part
				break
			}
		}
	} else {
		r = req.Body
	}
	if r == nil {
		return nil, apierr.InvalidField("file", "is missing")
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxGuideBytes+1))
	if err != nil {
		return nil, apierr.InvalidField("file", "could not be read")
	}
	if len(data) > MaxGuideBytes {
		return nil, apierr.InvalidField("file", fmt.Sprintf("is over %d MB", MaxGuideBytes>>20))
	}
	return data, nil
}

// parseGuide reads the rows of a guide; a structural problem is a 400 naming it.
func parseGuide(data []byte) ([]guideRow, bool, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, false, apierr.InvalidField("file", "is not a CSV text file (UTF-8)")
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, false, apierr.InvalidField("file", "is empty: a header row naming the columns is required")
	}
	if err != nil {
		return nil, false, notCSV(err)
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if name == "" {
			continue
		}
		if _, dup := col[name]; dup {
			return nil, false, apierr.InvalidField("file", fmt.Sprintf("the column %q appears twice in the header", name))
		}
		col[name] = i
	}
	var missing []string
	for _, c := range guideColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, false, apierr.InvalidField("file", fmt.Sprintf("the header lacks the required column(s) %s (required: %s; optional: item)",
			strings.Join(missing, ", "), strings.Join(guideColumns, ", ")))
	}
	itemCol, hasItem := col["item"]
	cell := func(rec []string, i int) string {
		if i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var rows []guideRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, notCSV(err)
		}
		blank := true
		for _, f := range rec {
			if strings.TrimSpace(f) != "" {
				blank = false
			}
		}
		if blank {
			continue
		}
		if len(rows) == MaxGuideRows {
			return nil, false, apierr.InvalidField("file", fmt.Sprintf("has over %d rows", MaxGuideRows))
		}
		line, _ := r.FieldPos(0)
		g := guideRow{line: line, sku: cell(rec, col["sku"]), description: cell(rec, col["description"]), pack: cell(rec, col["pack"]),
			packUnit: cell(rec, col["pack_unit"]), price: cell(rec, col["price"])}
		if hasItem {
			g.item = cell(rec, itemCol)
		}
		rows = append(rows, g)
	}
	return rows, hasItem, nil
}

func notCSV(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return apierr.InvalidField("file", fmt.Sprintf("is not valid CSV: line %d: %v", pe.Line, pe.Err))
	}
	return apierr.InvalidField("file", "is not valid CSV")
}

// parsePrice reads a price per pack such as 42.5, $42.50 or $1,234.50 into cents.
func parsePrice(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "$")
	t = strings.ReplaceAll(strings.TrimSpace(t), ",", "")
	if t == "" || strings.ContainsAny(t, "eE+-") {
		return 0, fmt.Errorf("price %q is not an amount such as 12.50", s)
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return 0, fmt.Errorf("price %q is not an amount such as 12.50", s)
	}
	cents := d.Shift(2)
	if !cents.Equal(cents.Truncate(0)) {
		return 0, fmt.Errorf("price %q has fractions of a cent", s)
	}
	if cents.GreaterThan(decimal.NewFromInt(money.MaxUnitCents)) {
		return 0, fmt.Errorf("price %q is over %s, the largest price of a pack", s, decimal.New(money.MaxUnitCents, -2).StringFixed(2))
	}
	return cents.IntPart(), nil
}

func (h *Handlers) ImportVendorGuide(ctx context.Context, req api.ImportVendorGuideRequestObject) (api.ImportVendorGuideResponseObject, error) {
	data, err := readGuideFile(req)
	if err != nil {
		return nil, err
	}
	rows, _, err := parseGuide(data)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var res api.GuideImportResult
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := getVendor(ctx, q, req.OrgId, req.Id); err != nil {
			return err
		}
		res = api.GuideImportResult{Rows: len(rows), Results: make([]api.GuideRowResult, 0, len(rows))}
		existing, err := q.AllVendorItems(ctx, db.AllVendorItemsParams{OrgID: req.OrgId, VendorID: req.Id})
		if err != nil {
			return err
		}
		bySKU := make(map[string]db.VendorItem, len(existing))
		for _, e := range existing {
			bySKU[strings.ToLower(e.Sku)] = e
		}
		// Items named in the item column, by lower-cased name or SKU.
		keys := []string{}
		for _, r := range rows {
			if r.item != "" {
				keys = append(keys, strings.ToLower(r.item))
			}
		}
		named := map[string][]uuid.UUID{}
		if len(keys) > 0 {
			found, err := q.MatchItemsByNameOrSku(ctx, db.MatchItemsByNameOrSkuParams{OrgID: req.OrgId, Keys: keys})
			if err != nil {
				return err
			}
			for _, f := range found {
				k := strings.ToLower(f.Name)
				named[k] = appendOnce(named[k], f.ID)
				if f.Sku != nil {
					k := strings.ToLower(*f.Sku)
					named[k] = appendOnce(named[k], f.ID)
				}
			}
		}
		var itemIDs []uuid.UUID
		for _, ids := range named {
			itemIDs = append(itemIDs, ids...)
		}
		for _, e := range existing {
			itemIDs = append(itemIDs, e.ItemID)
		}
		items, err := inventory.GetItems(ctx, q, req.OrgId, itemIDs)
		if err != nil {
			return err
		}
		var up db.UpsertVendorItemsParams
		up.OrgID, up.VendorID, up.Now = req.OrgId, req.Id, now
		seen := map[string]int{}
		for _, r := range rows {
			out := api.GuideRowResult{Line: r.line, Sku: r.sku}
			fail := func(outcome api.GuideRowOutcome, reason string) {
				out.Outcome, out.Reason = outcome, &reason
			}
			key := strings.ToLower(r.sku)
			size, sizeErr := decimal.NewFromString(r.pack)
			price, priceErr := parsePrice(r.price)
			prev, hasPrev := bySKU[key]
			switch {
			case r.sku == "":
				fail(api.GuideRowOutcomeError, "sku is empty")
			case seen[key] > 0:
				fail(api.GuideRowOutcomeError, fmt.Sprintf("sku %q appears again (first on line %d)", r.sku, seen[key]))
			case sizeErr != nil || !size.IsPositive():
				fail(api.GuideRowOutcomeError, fmt.Sprintf("pack %q is not a positive number", r.pack))
			case -size.Exponent() > 6:
				fail(api.GuideRowOutcomeError, fmt.Sprintf("pack %q has more than 6 decimal places", r.pack))
			case r.packUnit == "":
				fail(api.GuideRowOutcomeError, "pack_unit is empty")
			case priceErr != nil:
				fail(api.GuideRowOutcomeError, priceErr.Error())
			}
			if r.sku != "" && seen[key] == 0 {
				seen[key] = r.line
			}
			if out.Outcome == "" {
				var itemID uuid.UUID
				switch ids := named[strings.ToLower(r.item)]; {
				case r.item != "" && len(ids) > 1:
					fail(api.GuideRowOutcomeError, fmt.Sprintf("item %q names %d inventory items", r.item, len(ids)))
				case r.item != "" && len(ids) == 1:
					itemID = ids[0]
				case r.item != "":
					fail(api.GuideRowOutcomeUnmatched, fmt.Sprintf("no inventory item is named %q or has it as SKU", r.item))
				case hasPrev:
					itemID = prev.ItemID
				default:
					fail(api.GuideRowOutcomeUnmatched, "no item column value and no vendor item with this sku")
				}
				if out.Outcome == "" {
					it := items[itemID]
					out.ItemId = &itemID
					if err := checkPackUnit("pack_unit", it, size, r.packUnit); err != nil {
						fail(api.GuideRowOutcomeError, err.(*apierr.Error).Details[0].Message)
					}
				}
				if out.Outcome == "" {
					desc := r.description
					switch {
					case hasPrev && prev.ItemID == itemID && prev.PackSize.Equal(size) && prev.PackUnit == r.packUnit && prev.PriceCents == price &&
						strings.TrimSpace(deref(prev.Description)) == desc:
						out.Outcome, out.VendorItemId = api.GuideRowOutcomeUnchanged, &prev.ID
					default:
						id := uuid.Must(uuid.NewV7())
						out.Outcome = api.GuideRowOutcomeCreated
						if hasPrev {
							id, out.Outcome = prev.ID, api.GuideRowOutcomeUpdated
						}
						out.VendorItemId = &id
						up.Ids, up.ItemIds, up.Skus, up.Descriptions = append(up.Ids, id), append(up.ItemIds, itemID), append(up.Skus, r.sku), append(up.Descriptions, desc)
						up.PackSizes, up.PackUnits, up.Prices = append(up.PackSizes, size), append(up.PackUnits, r.packUnit), append(up.Prices, price)
					}
				}
			}
			switch out.Outcome {
			case api.GuideRowOutcomeCreated:
				res.Created++
			case api.GuideRowOutcomeUpdated:
				res.Updated++
			case api.GuideRowOutcomeUnchanged:
				res.Unchanged++
			case api.GuideRowOutcomeUnmatched:
				res.Unmatched++
			default:
				res.Errors++
			}
			res.Results = append(res.Results, out)
		}
		if len(up.Ids) == 0 {
			return nil
		}
		if _, err := q.UpsertVendorItems(ctx, up); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ImportVendorGuide200JSONResponse(res), nil
}

func appendOnce(ids []uuid.UUID, id uuid.UUID) []uuid.UUID {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
