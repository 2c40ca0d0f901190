package schemas

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrinterColumns(t *testing.T) {
	var names []string
	for _, c := range PrinterColumns() {
		names = append(names, c.Name)
	}
	want := []string{"ENVIRONMENT", "BACKEND", "VERSION", "PHASE", "API-SERVER", "BACKEND-NAME"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("printer columns (-want +got):\n%s", diff)
	}
}
