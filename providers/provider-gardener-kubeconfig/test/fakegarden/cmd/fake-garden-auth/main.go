// Command fake-garden-auth serves the adminkubeconfig subresource of Shoots for a garden
// cluster that cannot: the garden of the provider's test/apiserver is a plain kube-apiserver
// with a Shoot CRD, and a CRD cannot serve custom subresources. A test tool, built by that
// test; the e2e's garden runs the real gardener-apiserver. It stands in for gardener-apiserver on exactly
// one path (POST /apis/core.gardener.cloud/v1beta1/namespaces/{ns}/shoots/{name}/adminkubeconfig),
// answers 404 for everything else and proxies nothing.
//
// It looks Shoots up in the real garden it is pointed at, and delegates authentication and
// authorization to it like an aggregated API server: client certificates verified against
// --client-ca-file (the garden's client CA), bearer tokens through a TokenReview, and a
// SubjectAccessReview for "create shoots/adminkubeconfig", so the garden's RBAC decides.
//
// Point the provider's ProviderConfig at this server with the garden's credentials;
// --write-provider-kubeconfig writes such a kubeconfig.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden"
)

type cli struct {
	GardenKubeconfig        string        `required:"" type:"existingfile" help:"Kubeconfig of the garden cluster (reads Shoots and ConfigMaps, creates TokenReviews and SubjectAccessReviews)."`
	Listen                  string        `default:"127.0.0.1:0" help:"Address to serve on; port 0 picks a free one (see --address-file)."`
	AddressFile             string        `help:"Write https://<host>:<port> here once listening."`
	TLSCertFile             string        `help:"Serving certificate (PEM); empty: a certificate for 127.0.0.1 and localhost is made up."`
	TLSKeyFile              string        `help:"Serving key (PEM)."`
	ServingCAFile           string        `help:"Write the CA of the made-up serving certificate here."`
	ClientCAFile            string        `help:"CA that verifies client certificates (normally the garden's client CA); empty: bearer tokens only."`
	ServerURL               string        `help:"API server URL of every issued kubeconfig, instead of the Shoot's status.advertisedAddresses."`
	ShootCAFile             string        `help:"CA bundle of every issued kubeconfig, instead of the ConfigMap <shoot>.ca-cluster."`
	SigningCertFile         string        `help:"CA certificate that signs the client certificates of issued kubeconfigs; empty: a made-up CA (the kubeconfigs then work nowhere)."`
	SigningKeyFile          string        `help:"Key of --signing-cert-file."`
	MaxExpiration           time.Duration `default:"24h" help:"Cap on the requested lifetime, like gardener-apiserver's --shoot-admin-kubeconfig-max-expiration."`
	WriteProviderKubeconfig string        `help:"Write a kubeconfig for the provider's ProviderConfig Secret: this server, with the user of --garden-kubeconfig."`
}

func main() {
	var c cli
	kong.Parse(&c, kong.Name("fake-garden-auth"),
		kong.Description("Serves shoots/adminkubeconfig like gardener-apiserver, for a CRD-based test garden."))
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "fake-garden-auth:", err)
		os.Exit(1)
	}
}

func run(c *cli) error {
	gardenCfg, err := clientcmd.BuildConfigFromFlags("", c.GardenKubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(gardenCfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(gardenCfg)
	if err != nil {
		return err
	}
	issuer, err := newIssuer(c)
	if err != nil {
		return err
	}
	opts := fakegarden.Options{MaxExpiration: c.MaxExpiration, ServerURL: c.ServerURL}
	if c.ShootCAFile != "" {
		if opts.ServerCA, err = os.ReadFile(c.ShootCAFile); err != nil {
			return err
		}
	}
	h := fakegarden.NewHandler(&fakegarden.DelegatingAuthenticator{Kube: kube}, &fakegarden.SubjectAccessReviewer{Kube: kube},
		&fakegarden.GardenShoots{Dynamic: dyn, Kube: kube}, issuer, opts)

	tlsCfg, servingCA, err := serverTLS(c)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return err
	}
	url := "https://" + ln.Addr().String()
	if c.WriteProviderKubeconfig != "" {
		if err := writeProviderKubeconfig(c.GardenKubeconfig, c.WriteProviderKubeconfig, url, servingCA); err != nil {
			return err
		}
	}
	if c.AddressFile != "" {
		if err := os.WriteFile(c.AddressFile, []byte(url+"\n"), 0o644); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: h, TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	fmt.Fprintln(os.Stderr, "fake-garden-auth: serving shoots/adminkubeconfig on", url)
	if err := srv.ServeTLS(ln, "", ""); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func newIssuer(c *cli) (*fakegarden.Issuer, error) {
	if c.SigningCertFile == "" {
		return fakegarden.NewEphemeralIssuer(time.Now())
	}
	return fakegarden.NewIssuerFromFiles(c.SigningCertFile, c.SigningKeyFile)
}

// serverTLS returns the TLS config and, for a made-up certificate, its CA.
func serverTLS(c *cli) (*tls.Config, []byte, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	var servingCA []byte
	if c.TLSCertFile != "" {
		pair, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
		if err != nil {
			return nil, nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	} else {
		pair, ca, err := fakegarden.NewServingCert([]string{"127.0.0.1", "localhost"}, time.Now())
		if err != nil {
			return nil, nil, err
		}
		cfg.Certificates, servingCA = []tls.Certificate{pair}, ca
		if c.ServingCAFile != "" {
			if err := os.WriteFile(c.ServingCAFile, ca, 0o644); err != nil {
				return nil, nil, err
			}
		}
	}
	if c.ClientCAFile != "" {
		pem, err := os.ReadFile(c.ClientCAFile)
		if err != nil {
			return nil, nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("no certificate in %s", c.ClientCAFile)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	return cfg, servingCA, nil
}

// writeProviderKubeconfig copies the garden kubeconfig with its current cluster pointed at
// this server. With a certificate from --tls-cert-file the CA is left as it was.
func writeProviderKubeconfig(gardenKubeconfig, out, url string, servingCA []byte) error {
	cfg, err := clientcmd.LoadFromFile(gardenKubeconfig)
	if err != nil {
		return err
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
		return fmt.Errorf("%s has no current context with a cluster", gardenKubeconfig)
	}
	cluster := cfg.Clusters[ctx.Cluster]
	cluster.Server = url
	if servingCA != nil {
		cluster.CertificateAuthority, cluster.CertificateAuthorityData = "", servingCA
	}
	// Keep only the current context and embed every referenced file: the result goes into
	// a Secret, where paths mean nothing.
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		return err
	}
	if err := clientcmdapi.MinifyConfig(cfg); err != nil {
		return err
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*cfg, out)
}
