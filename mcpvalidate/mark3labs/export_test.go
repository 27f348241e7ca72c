package mark3labs

// Tools and Convert are tools and convert, for the external tests.
var (
	Tools   = tools
	Convert = convert
)
