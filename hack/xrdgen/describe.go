package main

import (
	"strings"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// reflowDescriptions makes every description of the schema read as paragraphs: the Go doc
// comments they come from wrap at a hundred columns, and kubectl explain (and every other
// reader of the OpenAPI schema) would break each sentence where the comment wrapped. Lines
// of a paragraph are joined; blank lines between paragraphs and list items stay.
func reflowDescriptions(s *extv1.JSONSchemaProps) {
	s.Description = reflow(s.Description)
	for k, p := range s.Properties {
		reflowDescriptions(&p)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		reflowDescriptions(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		reflowDescriptions(s.AdditionalProperties.Schema)
	}
}

// reflow joins the lines of each paragraph of text with spaces. A line that starts a list
// item ("- ", "* ") starts a new line.
func reflow(text string) string {
	paragraphs := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, p := range paragraphs {
		var b strings.Builder
		for j, line := range strings.Split(p, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case j == 0:
			case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* "):
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
			b.WriteString(line)
		}
		paragraphs[i] = b.String()
	}
	return strings.Join(paragraphs, "\n\n")
}
