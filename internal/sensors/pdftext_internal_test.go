package sensors

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A reader of the PDFs fpdf writes, enough for tests: each page's content stream (inflated) and
// the strings it shows, with the base font each is shown in.

type pdfPage struct {
	content string
	shows   []pdfShow
}

type pdfShow struct {
	font string // base font: Helvetica, Courier-Bold, …
	text string // decoded from the fonts' code page (Windows-1252)
}

// texts are the page's shown strings in order.
func (p pdfPage) texts() []string {
	out := make([]string, len(p.shows))
	for i, s := range p.shows {
		out[i] = s.text
	}
	return out
}

var (
	pdfStream   = regexp.MustCompile(`(\d+) 0 obj\n<<([^<>]*)>>\nstream\n`)
	pdfLength   = regexp.MustCompile(`/Length (\d+)`)
	pdfKids     = regexp.MustCompile(`/Type /Pages\n/Kids \[([^\]]*)\]`)
	pdfRef      = regexp.MustCompile(`(\d+) 0 R`)
	pdfPageObj  = regexp.MustCompile(`(\d+) 0 obj\n<</Type /Page\n[^>]*/Contents (\d+) 0 R`)
	pdfFontObj  = regexp.MustCompile(`(\d+) 0 obj\n<</Type /Font\n/BaseFont /(\S+)`)
	pdfFontName = regexp.MustCompile(`/F([0-9a-f]+) (\d+) 0 R`)
)

func readPDF(t testing.TB, b []byte) []pdfPage {
	t.Helper()
	streams := map[string]string{}
	for _, m := range pdfStream.FindAllSubmatchIndex(b, -1) {
		dict := string(b[m[4]:m[5]])
		n, err := strconv.Atoi(pdfLength.FindStringSubmatch(dict)[1])
		if err != nil || m[1]+n > len(b) {
			t.Fatalf("stream %s: length %v", b[m[2]:m[3]], err)
		}
		data := b[m[1] : m[1]+n]
		if strings.Contains(dict, "/FlateDecode") {
			r, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("stream %s: %v", b[m[2]:m[3]], err)
			}
			if data, err = io.ReadAll(r); err != nil {
				t.Fatalf("stream %s: %v", b[m[2]:m[3]], err)
			}
		}
		streams[string(b[m[2]:m[3]])] = string(data)
	}
	contents := map[string]string{}
	for _, m := range pdfPageObj.FindAllSubmatch(b, -1) {
		contents[string(m[1])] = string(m[2])
	}
	bases := map[string]string{}
	for _, m := range pdfFontObj.FindAllSubmatch(b, -1) {
		bases[string(m[1])] = string(m[2])
	}
	fonts := map[string]string{}
	for _, m := range pdfFontName.FindAllSubmatch(b, -1) {
		fonts["F"+string(m[1])] = bases[string(m[2])]
	}
	kids := pdfKids.FindSubmatch(b)
	if kids == nil {
		t.Fatal("no page tree")
	}
	var pages []pdfPage
	for _, ref := range pdfRef.FindAllSubmatch(kids[1], -1) {
		content, ok := streams[contents[string(ref[1])]]
		if !ok {
			t.Fatalf("page %s has no content", ref[1])
		}
		pages = append(pages, pdfPage{content: content, shows: shows(content, fonts)})
	}
	return pages
}

// shows lists the strings a content stream shows with Tj or ', in the font of the last Tf.
func shows(content string, fonts map[string]string) []pdfShow {
	var out []pdfShow
	var font, str, name string
	for i := 0; i < len(content); {
		c := content[i]
		switch {
		case c == '(':
			var b []byte
			depth := 1
			for i++; i < len(content) && depth > 0; i++ {
				switch c := content[i]; c {
				case '\\':
					i++
					switch e := content[i]; e {
					case 'n':
						b = append(b, '\n')
					case 'r':
						b = append(b, '\r')
					case 't':
						b = append(b, '\t')
					case '0', '1', '2', '3':
						v, _ := strconv.ParseUint(content[i:i+3], 8, 8)
						b = append(b, byte(v))
						i += 2
					default:
						b = append(b, e)
					}
				case '(':
					depth++
					b = append(b, c)
				case ')':
					if depth--; depth > 0 {
						b = append(b, c)
					}
				default:
					b = append(b, c)
				}
			}
			str = cp1252(b)
		case c == '/':
			j := i + 1
			for j < len(content) && !strings.ContainsRune(" \n/[]()<>", rune(content[j])) {
				j++
			}
			name, i = content[i+1:j], j
		case c == '\'':
			out = append(out, pdfShow{font, str})
			i++
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			j := i
			for j < len(content) && (content[j] >= 'A' && content[j] <= 'Z' || content[j] >= 'a' && content[j] <= 'z' || content[j] == '*') {
				j++
			}
			switch content[i:j] {
			case "Tj":
				out = append(out, pdfShow{font, str})
			case "Tf":
				font = fonts[name]
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// cp1252 decodes the fonts' code page: Latin-1, and the few Windows characters the log writes.
func cp1252(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch c {
		case 0x95:
			s.WriteRune('•')
		case 0x96:
			s.WriteRune('–')
		case 0x97:
			s.WriteRune('—')
		default:
			s.WriteRune(rune(c))
		}
	}
	return s.String()
}
