# shellcheck shell=bash
# Builds the testbed's Kubernetes, etcd and kwok binaries from Go modules into the cache
# (outside the clone), once per pinned version. The Go build cache is reused across runs.

k8s_ldflags() {
  local v=$K8S_VERSION minor
  minor=$(echo "$v" | cut -d. -f2)
  echo "-s -w -X k8s.io/component-base/version.gitVersion=$v \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
-X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$v"
}

K8S_COMMANDS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl"

ensure_k8s_binaries() {
  local missing=() b
  for b in $K8S_COMMANDS etcd; do [ -x "$TB_BIN/$b" ] || missing+=("$b"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v go >/dev/null || die "go is not installed (Go >= 1.24 is required)"
  local mod="$TB_REPO/scripts/gobuild/kubernetes" start=$SECONDS pkgs=()
  grep -q "k8s.io/kubernetes $K8S_VERSION" "$mod/go.mod" ||
    die "scripts/gobuild/kubernetes/go.mod does not pin $K8S_VERSION"
  for b in "${missing[@]}"; do
    if [ "$b" = etcd ]; then pkgs+=(./cmd/etcd); else pkgs+=("k8s.io/kubernetes/cmd/$b"); fi
  done
  log "building ${missing[*]} $K8S_VERSION from Go modules (cold: ~8 min on 2 cores; cached in $TB_BIN)"
  mkdir -p "$TB_BIN"
  (cd "$mod" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "$(k8s_ldflags)" -o "$TB_BIN/" "${pkgs[@]}") || die "go build of Kubernetes $K8S_VERSION failed"
  echo "$((SECONDS - start)) ${missing[*]}" >>"$TB_BIN/build-seconds.log"
  log "built ${missing[*]} in $((SECONDS - start))s"
}

ensure_kwok_binary() {
  if [ -x "$TB_KWOK_BIN/kwok" ]; then return 0; fi
  local mod="$TB_REPO/scripts/gobuild/kwok" start=$SECONDS
  log "building kwok $KWOK_VERSION (cached in $TB_KWOK_BIN)"
  mkdir -p "$TB_KWOK_BIN"
  (cd "$mod" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w" -o "$TB_KWOK_BIN/kwok" sigs.k8s.io/kwok/cmd/kwok) ||
    die "go build of kwok $KWOK_VERSION failed"
  echo "$((SECONDS - start)) kwok" >>"$TB_KWOK_BIN/build-seconds.log"
}
