package fetch

// UserAgent returns the User-Agent header the client sends, so robots.txt
// rules can be matched against its product token.
func (c *Client) UserAgent() string { return c.opt.UserAgent }

// Limits returns the client's options with the defaults filled in.
func (c *Client) Limits() Options { return c.opt }
