package devices

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/sous-app/sous/internal/apierr"
)

// The largest image a board is asked to show. A few kilobytes of PNG or GIF can declare an image
// of 50,000 × 50,000 pixels, which a screen's browser would try to allocate gigabytes for; no
// board is larger than 8K UHD.
const (
	MaxImageSide   = 8192
	MaxImagePixels = 7680 * 4320
)

// imageNames are the media types boards may show (as http.DetectContentType names them), by the
// name people know them by. SVG is not among them: it can carry script.
var imageNames = map[string]string{"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WebP", "image/gif": "GIF"}

// typeAliases are declarations that mean one of imageNames' types.
var typeAliases = map[string]string{"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png"}

// inspectImage finds the type of an upload from its bytes and checks that they are what the
// client says and what a board can show: one of the accepted types, agreeing with the type the
// part declares (when it declares a specific one), with a header its format's decoder reads and
// sane dimensions. It returns the media type.
func inspectImage(data []byte, declared string) (string, error) {
	contentType := http.DetectContentType(data)
	name, ok := imageNames[contentType]
	if !ok {
		return "", apierr.InvalidField("file", "must be a PNG, JPEG, WebP or GIF image")
	}
	if d := declaredType(declared); d != "" && d != contentType {
		return "", apierr.InvalidField("file", fmt.Sprintf("is declared %s but its content is a %s image (%s)", d, name, contentType))
	}
	w, h, err := imageSize(contentType, data)
	if err != nil {
		return "", apierr.InvalidField("file", fmt.Sprintf("is not a well-formed %s image", name))
	}
	switch {
	case w < 1 || h < 1:
		return "", apierr.InvalidField("file", "has no pixels")
	case w > MaxImageSide || h > MaxImageSide || w*h > MaxImagePixels:
		return "", apierr.InvalidField("file", fmt.Sprintf(
			"is %d×%d pixels; images may be at most %d pixels on a side and %d pixels in all (7680×4320)",
			w, h, MaxImageSide, MaxImagePixels))
	}
	return contentType, nil
}

// declaredType is the media type a part declares, or "" when it declares none in particular
// (absent, unreadable, or the generic application/octet-stream that clients send when they do
// not know).
func declaredType(header string) string {
	t, _, err := mime.ParseMediaType(header)
	if err != nil || t == "application/octet-stream" {
		return ""
	}
	if alias, ok := typeAliases[t]; ok {
		return alias
	}
	return t
}

// imageSize reads the dimensions from the image's header with its format's own decoder, which
// also checks that the header is well formed (and, for PNG, its checksum). The image itself is
// not decoded: that would cost the memory the dimension limit is there to bound.
func imageSize(contentType string, data []byte) (int, int, error) {
	var (
		cfg image.Config
		err error
	)
	switch contentType {
	case "image/png":
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case "image/gif":
		cfg, err = gif.DecodeConfig(bytes.NewReader(data))
	case "image/webp":
		return webpSize(data)
	default:
		err = fmt.Errorf("devices: no decoder for %s", contentType)
	}
	return cfg.Width, cfg.Height, err
}

var errBadWebP = errors.New("devices: malformed WebP")

// webpSize reads a WebP file's dimensions from its first chunk (the standard library has no WebP
// decoder): VP8 for lossy, VP8L for lossless, VP8X for the extended format, whose canvas size it
// carries. Layouts: RFC 9649 and the VP8 key frame header of RFC 6386 §9.1.
func webpSize(b []byte) (int, int, error) {
	if len(b) < 20 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, errBadWebP
	}
	// The RIFF size counts everything after its own field; a file cut short is not an image.
	if riff := binary.LittleEndian.Uint32(b[4:8]); uint64(riff)+8 > uint64(len(b)) || riff < 12 {
		return 0, 0, errBadWebP
	}
	fourCC, size := string(b[12:16]), binary.LittleEndian.Uint32(b[16:20])
	payload := b[20:]
	if uint64(size) > uint64(len(payload)) {
		return 0, 0, errBadWebP
	}
	payload = payload[:size]
	switch strings.TrimSpace(fourCC) {
	case "VP8":
		// Frame tag (3 bytes, bit 0 clear on a key frame), start code 9d 01 2a, then 14-bit
		// width and height (2 bits of scaling above each).
		if len(payload) < 10 || payload[0]&1 != 0 || payload[3] != 0x9d || payload[4] != 0x01 || payload[5] != 0x2a {
			return 0, 0, errBadWebP
		}
		w := binary.LittleEndian.Uint16(payload[6:8]) & 0x3fff
		h := binary.LittleEndian.Uint16(payload[8:10]) & 0x3fff
		return int(w), int(h), nil
	case "VP8L":
		// Signature 0x2f, then width-1 and height-1 in 14 bits each, an alpha bit, and a 3-bit
		// version that must be 0.
		if len(payload) < 5 || payload[0] != 0x2f {
			return 0, 0, errBadWebP
		}
		bits := binary.LittleEndian.Uint32(payload[1:5])
		if bits>>29 != 0 {
			return 0, 0, errBadWebP
		}
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, nil
	case "VP8X":
		// Flags (1 byte), reserved (3), canvas width-1 and height-1 in 24 bits each.
		if len(payload) < 10 {
			return 0, 0, errBadWebP
		}
		w := uint32(payload[4]) | uint32(payload[5])<<8 | uint32(payload[6])<<16
		h := uint32(payload[7]) | uint32(payload[8])<<8 | uint32(payload[9])<<16
		return int(w) + 1, int(h) + 1, nil
	}
	return 0, 0, errBadWebP
}

// Image is an uploaded image that passed the checks board media pass.
type Image struct {
	Data        []byte
	Filename    *string
	ContentType string
}

// ReadImage reads the one part "file" of a multipart upload (other parts are skipped) and
// checks it exactly as a board media upload is checked: size, type from the bytes, agreement
// with the declared type, a readable header and sane dimensions. Other domains that take
// photos (task evidence) use it, so every image the API accepts meets the same rules.
func ReadImage(r *multipart.Reader) (Image, error) {
	data, filename, declared, err := readFilePart(r, func(_ string, part io.Reader) error {
		_, _ = io.Copy(io.Discard, part)
		return nil
	})
	if err != nil {
		return Image{}, err
	}
	contentType, err := inspectImage(data, declared)
	if err != nil {
		return Image{}, err
	}
	return Image{Data: data, Filename: filename, ContentType: contentType}, nil
}
