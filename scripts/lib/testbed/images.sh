# shellcheck shell=bash
# Container images built locally as OCI image-layout tarballs (no registry is ever contacted):
# a pause image (a tiny static C program), a busybox image (Debian's busybox-static) and etcd's
# image under its registry.k8s.io name — the testbed's own etcd build in /usr/local/bin, as in
# the real image — so that `kubectl fed init` runs the host's federation etcd member with its
# default --etcd-image, as on a real cluster whose nodes pull it.

TB_IMAGES="$FED_CACHE_DIR/images"
PAUSE_IMAGE=fed.local/pause:1
BUSYBOX_IMAGE=fed.local/busybox:1
ETCD_IMAGE=registry.k8s.io/etcd:3.5.21-0

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# build_oci_image REF ROOTFS ENTRYPOINT_JSON OUT_TAR
build_oci_image() {
  local ref=$1 rootfs=$2 entrypoint=$3 out=$4
  local work; work=$(mktemp -d)
  mkdir -p "$work/blobs/sha256"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$work/layer.tar" .
  local ld ls_; ld=$(sha256_of "$work/layer.tar"); ls_=$(stat -c %s "$work/layer.tar")
  mv "$work/layer.tar" "$work/blobs/sha256/$ld"
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin:/usr/bin:/sbin:/usr/sbin"],"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$entrypoint" "$ld" >"$work/config.json"
  local cd_ cs; cd_=$(sha256_of "$work/config.json"); cs=$(stat -c %s "$work/config.json")
  mv "$work/config.json" "$work/blobs/sha256/$cd_"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$cd_" "$cs" "$ld" "$ls_" >"$work/manifest.json"
  local md ms; md=$(sha256_of "$work/manifest.json"); ms=$(stat -c %s "$work/manifest.json")
  mv "$work/manifest.json" "$work/blobs/sha256/$md"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$md" "$ms" "$ref" "${ref##*:}" >"$work/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
  mkdir -p "$(dirname "$out")"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work" -cf "$out.tmp" oci-layout index.json blobs
  mv "$out.tmp" "$out"
  rm -rf "$work"
}

# etcd's image, from the testbed's etcd binary (a static Go binary: nothing else to copy).
ensure_etcd_image() {
  local tar="$TB_IMAGES/etcd-${ETCD_IMAGE##*:}.tar"
  [ -f "$tar" ] && return 0
  [ -x "$TB_BIN/etcd" ] || die "no etcd binary in $TB_BIN (scripts/testbed build)"
  local version=${ETCD_IMAGE##*:}
  version=${version%-*}  # 3.5.21-0: etcd 3.5.21, image revision 0
  "$TB_BIN/etcd" --version | grep -qx "etcd Version: $version" ||
    die "$TB_BIN/etcd is not etcd $version, the version $ETCD_IMAGE names"
  local r; r=$(mktemp -d)
  mkdir -p "$r/usr/local/bin" "$r/var/lib/etcd" "$r/tmp"
  chmod 1777 "$r/tmp"
  cp "$TB_BIN/etcd" "$r/usr/local/bin/etcd"
  build_oci_image "$ETCD_IMAGE" "$r" '["/usr/local/bin/etcd"]' "$tar"
  rm -rf "$r"
}

ensure_images() {
  ensure_etcd_image
  [ -f "$TB_IMAGES/pause.tar" ] && [ -f "$TB_IMAGES/busybox.tar" ] && return 0
  local work; work=$(mktemp -d)
  # pause: holds the pod's namespaces, exits on SIGTERM/SIGINT, reaps orphans.
  mkdir -p "$work/pause"
  cat >"$work/pause.c" <<'C'
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void on_term(int sig) { (void)sig; _exit(0); }
static void on_child(int sig) { (void)sig; while (waitpid(-1, NULL, WNOHANG) > 0) {} }
int main(void) {
  struct sigaction term = {.sa_handler = on_term}, child = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP};
  sigaction(SIGINT, &term, NULL);
  sigaction(SIGTERM, &term, NULL);
  sigaction(SIGCHLD, &child, NULL);
  for (;;) pause();
}
C
  gcc -static -Os -s -o "$work/pause/pause" "$work/pause.c" || die "cannot compile the pause binary (gcc, libc6-dev)"
  build_oci_image "$PAUSE_IMAGE" "$work/pause" '["/pause"]' "$TB_IMAGES/pause.tar"
  # busybox: every applet as a symlink, plus the files a shell user expects.
  local r="$work/busybox"
  mkdir -p "$r/bin" "$r/etc" "$r/tmp" "$r/www" "$r/root"
  cp /bin/busybox "$r/bin/busybox"
  local applet
  for applet in $("$r/bin/busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$r/bin/$applet"
  done
  ln -s bin "$r/sbin"; mkdir -p "$r/usr"; ln -s ../bin "$r/usr/bin"; ln -s ../bin "$r/usr/sbin"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
  echo "fedtb busybox" >"$r/www/index.html"
  chmod 1777 "$r/tmp"
  build_oci_image "$BUSYBOX_IMAGE" "$r" '["/bin/sh"]' "$TB_IMAGES/busybox.tar"
  rm -rf "$work"
}

# import_images SOCKET [TAR...]: loads images into a node's containerd (CRI namespace k8s.io).
import_images() {
  local sock=$1; shift
  local t
  for t in "$TB_IMAGES/pause.tar" "$TB_IMAGES/busybox.tar" "$TB_IMAGES/etcd-${ETCD_IMAGE##*:}.tar" "$@"; do
    ctr -a "$sock" -n k8s.io images import "$t" >/dev/null ||
      die "importing $t into $sock failed"
  done
}

# build_binary_image REF OUT_TAR BIN...: an image holding BINs in /usr/local/bin with every
# shared library they load (from ldd), for the project's own binaries (fed-agent).
build_binary_image() {
  local ref=$1 out=$2; shift 2
  local r; r=$(mktemp -d)
  mkdir -p "$r/usr/local/bin" "$r/tmp" "$r/etc"
  chmod 1777 "$r/tmp"
  local b lib
  for b in "$@"; do
    [ -x "$b" ] || die "image $ref: $b is not an executable"
    cp -L "$b" "$r/usr/local/bin/"
    for lib in $(ldd "$b" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | sort -u); do
      mkdir -p "$r$(dirname "$lib")"
      cp -L "$lib" "$r$lib"
    done
  done
  printf 'root:x:0:0:root:/root:/bin/false\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
  cp /etc/ssl/certs/ca-certificates.crt "$r/etc/ca-certificates.crt" 2>/dev/null || true
  build_oci_image "$ref" "$r" "[\"/usr/local/bin/$(basename "$1")\"]" "$out"
  rm -rf "$r"
}

# load_image_everywhere TAR: imports an image into every real node of every cluster.
load_image_everywhere() {
  local tar=$1 sock n=0
  for sock in "$TB_RUN"/c*-node*/containerd.sock; do
    [ -S "$sock" ] || continue
    ctr -a "$sock" -n k8s.io images import "$tar" >/dev/null || die "importing $tar into $sock failed"
    n=$((n + 1))
  done
  [ $n -gt 0 ] || die "no running node to load $tar into (scripts/testbed up first)"
  log "loaded $(basename "$tar") into $n node(s)"
}
