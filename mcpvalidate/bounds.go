package mcpvalidate

import "github.com/theurian/boundlab/mcpvalidate/bounds"

// The figures the validator is built on are package bounds' constants;
// these are their names inside the package.
const (
	maxEnvelopeMembers   = bounds.MaxEnvelopeMembers
	maxEnvelopeNameBytes = bounds.MaxEnvelopeNameBytes
	maxMethodBytes       = bounds.MaxMethodBytes
	maxIDBytes           = bounds.MaxIDBytes
	maxToolNameBytes     = bounds.MaxToolNameBytes
	maxOtherParamsBytes  = bounds.MaxOtherParamsBytes
	maxEnvelopeNodes     = bounds.MaxEnvelopeNodes

	defaultSmallReserve = bounds.DefaultSmallReserve
	defaultSmallBody    = bounds.DefaultSmallBody
	defaultMaxWait      = bounds.DefaultMaxWait
	defaultBodyReadBase = bounds.DefaultBodyReadBase
	defaultMinBodyRate  = bounds.DefaultMinBodyRate

	toolCut        = bounds.ToolCut
	fragmentCut    = bounds.FragmentCut
	maxLeaves      = bounds.MaxLeaves
	refusalCeiling = bounds.RefusalCeiling

	requestPeakFactor = bounds.PeakFactor
	requestFixedCost  = bounds.FixedCost
	requestNodeCost   = bounds.NodeCost
)

// requestWeight is what a request with a body of n bytes is weighed at.
var requestWeight = bounds.Request
