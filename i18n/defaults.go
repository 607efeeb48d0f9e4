package i18n

// OrNew is c, or the embedded catalogue when c is nil: what a component
// does when its caller gave it none (tests, tools).
func OrNew(c *Catalogue) (*Catalogue, error) {
	if c != nil {
		return c, nil
	}
	return New(Options{})
}
