//go:build amd64 && !purego

#include "textflag.h"

#define SPLAT(name, word) \
	DATA name<>+0(SB)/8, $word \
	DATA name<>+8(SB)/8, $word \
	DATA name<>+16(SB)/8, $word \
	DATA name<>+24(SB)/8, $word \
	GLOBL name<>(SB), RODATA|NOPTR, $32

SPLAT(erC0End, 0x2020202020202020) // below it, as a signed byte: C0 and every byte >= 0x80
SPLAT(erQuote, 0x2222222222222222)
SPLAT(erBackslash, 0x5c5c5c5c5c5c5c5c)
SPLAT(erNibble, 0x0f0f0f0f0f0f0f0f)

// func escapeBlockAVX2(b *[33]byte, tab *escapeClasses) (st, bs, valid, quote, g0, g1, odd0, odd1 uint32)
//
// Masks, one bit a byte, of the 32 bytes b[0:32]: st its stop bytes
// (signed below 0x20, ", \), bs its backslashes, odd0 and odd1 its bytes
// equal to tab.odd0 and tab.odd1; and of the 32 bytes after each, b[1:33],
// read as an escape's letter: valid where it is one of the letters
// tab.lo/hi classify (a letter's class is lo[low nibble] & hi[high nibble],
// one bit a letter, broadcast to both lanes as VPSHUFB looks up within a
// lane), quote where its class meets tab.quote, g0 and g1 where it meets
// tab.group. Only VEX-encoded instructions (see plainrun_amd64.s).
TEXT ·escapeBlockAVX2(SB), NOSPLIT, $0-48
	MOVQ b+0(FP), SI
	MOVQ tab+8(FP), DI
	VMOVDQU (SI), Y0
	VMOVDQU 1(SI), Y1

	VMOVDQU erC0End<>(SB), Y2
	VPCMPGTB Y0, Y2, Y2 // 0x20 > b, signed
	VPCMPEQB erQuote<>(SB), Y0, Y3
	VPOR     Y3, Y2, Y2
	VPCMPEQB erBackslash<>(SB), Y0, Y3
	VPOR     Y3, Y2, Y2
	VPMOVMSKB Y2, AX
	MOVL AX, st+16(FP)
	VPMOVMSKB Y3, AX
	MOVL AX, bs+20(FP)

	VPBROADCASTB 36(DI), Y4
	VPCMPEQB Y0, Y4, Y4
	VPMOVMSKB Y4, AX
	MOVL AX, odd0+40(FP)
	VPBROADCASTB 37(DI), Y4
	VPCMPEQB Y0, Y4, Y4
	VPMOVMSKB Y4, AX
	MOVL AX, odd1+44(FP)

	// The letters' classes.
	VMOVDQU erNibble<>(SB), Y5
	VPAND   Y5, Y1, Y6      // low nibbles
	VPSRLW  $4, Y1, Y7
	VPAND   Y5, Y7, Y7      // high nibbles
	VBROADCASTI128 0(DI), Y8
	VPSHUFB Y6, Y8, Y8
	VBROADCASTI128 16(DI), Y9
	VPSHUFB Y7, Y9, Y9
	VPAND   Y9, Y8, Y8      // class
	VPXOR   Y15, Y15, Y15

	VPCMPEQB Y15, Y8, Y10 // no letter
	VPMOVMSKB Y10, AX
	NOTL AX
	MOVL AX, valid+24(FP)

	VPBROADCASTB 32(DI), Y10
	VPAND    Y8, Y10, Y10
	VPCMPEQB Y15, Y10, Y10
	VPMOVMSKB Y10, AX
	NOTL AX
	MOVL AX, quote+28(FP)

	VPBROADCASTB 33(DI), Y10
	VPAND    Y8, Y10, Y10
	VPCMPEQB Y15, Y10, Y10
	VPMOVMSKB Y10, AX
	NOTL AX
	MOVL AX, g0+32(FP)

	VPBROADCASTB 34(DI), Y10
	VPAND    Y8, Y10, Y10
	VPCMPEQB Y15, Y10, Y10
	VPMOVMSKB Y10, AX
	NOTL AX
	MOVL AX, g1+36(FP)

	VZEROUPPER
	RET
