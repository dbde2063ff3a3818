// etcd built from go.etcd.io/etcd/server/v3 at the version kube-apiserver itself
// depends on, so the testbed's etcd always matches what the apiserver was tested with.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
