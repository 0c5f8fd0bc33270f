package csvout

import (
	"bytes"
	"testing"
)

// (encoding/csv drops a lone CR inside a quoted field when writing CRLF line ends.)
func TestCellsNeverStartAFormula(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	_ = w.Row(Text(`=HYPERLINK("http://evil.example","x")`), Text("=cmd|' /C calc'!A0"), Text("+1"), Text("-1"), Text("@SUM(A1)"),
		Text("\tx"), Text("\rx"), Text("plain"), Text(""), Number("-2.5"), Number("42.50"), Number("-1+1"), Number("=1"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `"'=HYPERLINK(""http://evil.example"",""x"")",'=cmd|' /C calc'!A0,'+1,'-1,'@SUM(A1)` + ",'\tx,\"'x\",plain,,-2.5,42.50,'-1+1,'=1\r\n"
	if got := buf.String(); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
