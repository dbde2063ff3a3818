//go:build tools

// Records the main package this module builds so that `go mod tidy` keeps it.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
