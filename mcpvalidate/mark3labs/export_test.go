package mark3labs

// Tools is tools, for the external tests.
var Tools = tools
