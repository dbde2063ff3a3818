# Sourced by reconfigure_test.sh (c2, `fed`, `k`, `jq_`, $IMAGE, $work): the CNI switch (issue 7,
# acceptance 4). c2's nodes get a second bridge network on another subnet as the conflist that
# sorts first, drained one at a time; the plugin's own probe and a pod of ours get addresses
# from it; the old file is untouched; --rollback removes ours and new pods are back on the
# testbed's network. A list the runtime would refuse exits 2 and writes nothing.
CNI_DIR="/var/lib/fedtb/c2/{node}/cni/net.d"
cni_dir() { echo "/var/lib/fedtb/c2/$1/cni/net.d"; }
cni_flags=(--image "$IMAGE" --max-unavailable 1 --cni-conf-dir "$CNI_DIR")

cni_restore() {
  for n in node1 node2; do
    rm -f "$(cni_dir "$n")/00-kubectl-fed.conflist"
    k c2 annotate node "$n" kubectl-fed.io/cni-network- kubectl-fed.io/cni-probe- >/dev/null
  done
  k c2 delete namespace cni-e2e --ignore-not-found --wait=false
}

# The address a new busybox pod on `node` gets.
new_pod_ip() {
  local name=$1 node=$2
  k c2 -n cni-e2e run "$name" --image fed.local/busybox:1 --restart Never \
    --overrides "{\"apiVersion\":\"v1\",\"spec\":{\"nodeName\":\"$node\",\"terminationGracePeriodSeconds\":0}}" \
    --command -- sleep 600 >/dev/null
  for _ in $(seq 60); do
    ip=$(k c2 -n cni-e2e get pod "$name" -o jsonpath='{.status.podIP}')
    [ -n "$ip" ] && { echo "$ip"; return; }
    sleep 1
  done
  echo none
}

k c2 create namespace cni-e2e >/dev/null
old_sum=$(sha256sum "$(cni_dir node1)/10-fedtb.conflist" | cut -d' ' -f1)
old_subnet=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['plugins'][0]['ipam']['ranges'][0][0]['subnet'])" "$(cni_dir node2)/10-fedtb.conflist")  # node2's: the pods below go there
cat >"$work/alt.conflist" <<'JSON'
{
  "cniVersion": "1.0.0",
  "name": "fedtb-alt",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni1", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "/var/lib/fedtb/c2/{node}/cni/ipam-alt",
        "ranges": [[{ "subnet": "10.250.0.0/24" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON

# A list without plugins: exit 2, no file anywhere.
echo '{"cniVersion": "1.0.0", "name": "broken"}' >"$work/broken.conflist"
rc=0; fed reconfigure --cni-conflist "$work/broken.conflist" "${cni_flags[@]}" 2>"$work/cni-bad.err" || rc=$?
expect_eq "cni: a list without plugins exits 2" "$rc" 2
grep -q 'broken.conflist: plugins is missing' "$work/cni-bad.err" && pass "cni: the message names the field" ||
  fail "cni: $(cat "$work/cni-bad.err")"
[ ! -e "$(cni_dir node1)/00-kubectl-fed.conflist" ] && pass "cni: nothing written" || fail "cni: a file was written"

rc=0; fed reconfigure --cni-conflist "$work/alt.conflist" "${cni_flags[@]}" --drain -o json \
  >"$work/cni.json" 2>"$work/cni.err" || rc=$?
cat "$work/cni.json" "$work/cni.err"
expect_eq "cni: the switch exits 0" "$rc" 0
expect_eq "cni: both nodes Applied" "$(jq_ '",".join(n["result"] for n in d["clusters"][0]["nodes"])' <"$work/cni.json")" \
  "Applied,Applied"
jq_ 'd["clusters"][0]["nodes"][0]["message"]' <"$work/cni.json" | grep -q '^a new pod got 10\.250\.0\.[0-9]* from network fedtb-alt$' &&
  pass "cni: the plugin's probe got an address of the new network" || fail "cni: no probe result"
for n in node1 node2; do
  expect_eq "cni: $n has the switch's file first" "$(ls "$(cni_dir "$n")" | head -1)" 00-kubectl-fed.conflist
done
expect_eq "cni: the testbed's own file is untouched" \
  "$(sha256sum "$(cni_dir node1)/10-fedtb.conflist" | cut -d' ' -f1)" "$old_sum"
fed reconfigure status -o json >"$work/cni-status.json"
expect_eq "cni: reconfigure status shows the network on both nodes" \
  "$(jq_ '",".join((n["cni"] or {}).get("network", "-") for n in d["clusters"][0]["nodes"])' <"$work/cni-status.json")" "fedtb-alt,fedtb-alt"
ip=$(new_pod_ip after-switch node2)
case $ip in 10.250.0.*) pass "cni: a new pod on node2 got $ip from the new network" ;;
  *) fail "cni: a new pod on node2 got $ip" ;; esac

rc=0; fed reconfigure --rollback "${cni_flags[@]}" -o json >"$work/cni-back.json" 2>"$work/cni-back.err" || rc=$?
cat "$work/cni-back.json" "$work/cni-back.err"
expect_eq "cni: --rollback exits 0" "$rc" 0
for n in node1 node2; do
  [ ! -e "$(cni_dir "$n")/00-kubectl-fed.conflist" ] && pass "cni: $n's switch file is gone" ||
    fail "cni: $n still has the switch's file"
done
fed reconfigure status -o json >"$work/cni-status.json"
expect_eq "cni: after --rollback status shows the nodes' own network" \
  "$(jq_ '",".join(str(n["cni"]) for n in d["clusters"][0]["nodes"])' <"$work/cni-status.json")" "None,None"
ip=$(new_pod_ip after-rollback node2)
python3 -c "import ipaddress,sys; sys.exit(0 if ipaddress.ip_address(sys.argv[1]) in ipaddress.ip_network(sys.argv[2]) else 1)" \
  "$ip" "$old_subnet" 2>/dev/null && pass "cni: a new pod on node2 got $ip from the old network ($old_subnet)" ||
  fail "cni: after the rollback a new pod got $ip, not in $old_subnet"
cni_restore
