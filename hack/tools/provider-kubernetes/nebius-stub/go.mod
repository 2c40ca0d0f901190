// Stand-in for github.com/nebius/gosdk, which the Go module proxy refuses at the
// version provider-kubernetes v1.3.1 requires. It offers only the names the
// provider compiles against; every Nebius login fails with a clear error.
module github.com/nebius/gosdk

go 1.26
