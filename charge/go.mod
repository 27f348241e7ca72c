module github.com/theurian/boundlab/charge

go 1.25.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.37.0
)
