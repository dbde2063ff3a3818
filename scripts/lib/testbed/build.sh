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

ensure_k8s_binaries() {
  if [ -f "$TB_BIN/.complete" ]; then return 0; fi
  command -v go >/dev/null || die "go is not installed (scripts/bootstrap installs golang-go)"
  local mod="$TB_REPO/scripts/gobuild/kubernetes" start=$SECONDS
  grep -q "k8s.io/kubernetes $K8S_VERSION" "$mod/go.mod" ||
    die "scripts/gobuild/kubernetes/go.mod does not pin $K8S_VERSION"
  log "building kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, etcd $K8S_VERSION (cold: ~20 min on 2 cores; cached in $TB_BIN)"
  mkdir -p "$TB_BIN"
  (cd "$mod" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "$(k8s_ldflags)" -o "$TB_BIN/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet \
    k8s.io/kubernetes/cmd/kube-proxy ./cmd/etcd) || die "go build of Kubernetes $K8S_VERSION failed"
  echo "$((SECONDS - start))" >"$TB_BIN/.build-seconds"
  touch "$TB_BIN/.complete"
  log "Kubernetes binaries built in $((SECONDS - start))s"
}

ensure_kwok_binary() {
  if [ -f "$TB_KWOK_BIN/.complete" ]; then return 0; fi
  local mod="$TB_REPO/scripts/gobuild/kwok" start=$SECONDS
  log "building kwok $KWOK_VERSION (cached in $TB_KWOK_BIN)"
  mkdir -p "$TB_KWOK_BIN"
  (cd "$mod" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w" -o "$TB_KWOK_BIN/kwok" sigs.k8s.io/kwok/cmd/kwok) ||
    die "go build of kwok $KWOK_VERSION failed"
  echo "$((SECONDS - start))" >"$TB_KWOK_BIN/.build-seconds"
  touch "$TB_KWOK_BIN/.complete"
}
