package mcpvalidate

import "github.com/theurian/boundlab/internal/gatebounds"

// The figures the validator is built on live in internal/gatebounds, where
// boundlab's lab re-measures them; these are their names inside the package.
const (
	maxEnvelopeMembers   = gatebounds.MaxEnvelopeMembers
	maxEnvelopeNameBytes = gatebounds.MaxEnvelopeNameBytes
	maxMethodBytes       = gatebounds.MaxMethodBytes
	maxIDBytes           = gatebounds.MaxIDBytes
	maxToolNameBytes     = gatebounds.MaxToolNameBytes
	maxOtherParamsBytes  = gatebounds.MaxOtherParamsBytes
	maxEnvelopeNodes     = gatebounds.MaxEnvelopeNodes

	defaultSmallReserve = gatebounds.DefaultSmallReserve
	defaultSmallBody    = gatebounds.DefaultSmallBody
	defaultMaxWait      = gatebounds.DefaultMaxWait
	defaultBodyReadBase = gatebounds.DefaultBodyReadBase
	defaultMinBodyRate  = gatebounds.DefaultMinBodyRate

	toolCut        = gatebounds.ToolCut
	fragmentCut    = gatebounds.FragmentCut
	maxLeaves      = gatebounds.MaxLeaves
	refusalCeiling = gatebounds.RefusalCeiling

	requestPeakFactor = gatebounds.PeakFactor
	requestFixedCost  = gatebounds.FixedCost
	requestNodeCost   = gatebounds.NodeCost
)

// requestWeight is what a request with a body of n bytes is weighed at.
var requestWeight = gatebounds.Request
