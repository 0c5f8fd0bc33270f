package httpapi

// DialSmallReceive is dialSmall for the package's external tests: a client whose small receive
// buffer stalls the server's writes as soon as it stops reading.
var DialSmallReceive = dialSmall
