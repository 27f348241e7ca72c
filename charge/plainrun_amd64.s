//go:build amd64 && !purego

#include "textflag.h"

// The three bytes each block is compared with: 0x20 (below it, as a signed
// byte, stops), " and \.
DATA stopBytes<>+0(SB)/1, $0x20
DATA stopBytes<>+1(SB)/1, $0x22
DATA stopBytes<>+2(SB)/1, $0x5c
GLOBL stopBytes<>(SB), RODATA|NOPTR, $3

// func plainRunAVX2(b []byte, odd0, odd1 byte) (n, c0, c1 int)
//
// A byte stops the run when, as a signed byte, it is below 0x20 (C0 and
// every byte >= 0x80) or it equals " or \. Each 32-byte block gives one
// stop mask and one mask per odd byte; a block with no stop adds its odd
// counts and the loop goes on; the first block with a stop adds only the
// odd bytes below the first stop.
// Only VEX-encoded instructions: a legacy-SSE MOVQ into an X register
// here cost about 1 µs per call on the 2-vCPU Xeon the bench suite is pinned
// on (an SSE/AVX transition on every call), 75 times the whole short run.
TEXT ·plainRunAVX2(SB), NOSPLIT, $0-56
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	VPBROADCASTB odd0+24(FP), Y4
	VPBROADCASTB odd1+25(FP), Y5
	VPBROADCASTB stopBytes<>+0(SB), Y6
	VPBROADCASTB stopBytes<>+1(SB), Y7
	VPBROADCASTB stopBytes<>+2(SB), Y8
	XORQ DI, DI // n
	XORQ R8, R8 // c0
	XORQ R9, R9 // c1

loop:
	LEAQ 32(DI), AX
	CMPQ AX, DX
	JA   done
	VMOVDQU (SI)(DI*1), Y0
	VPCMPGTB Y0, Y6, Y1 // 0x20 > b, signed
	VPCMPEQB Y0, Y7, Y2
	VPOR     Y2, Y1, Y1
	VPCMPEQB Y0, Y8, Y3
	VPOR     Y3, Y1, Y1
	VPMOVMSKB Y1, AX
	VPCMPEQB Y0, Y4, Y2
	VPMOVMSKB Y2, R10
	VPCMPEQB Y0, Y5, Y3
	VPMOVMSKB Y3, R11
	TESTL AX, AX
	JNZ   stop
	POPCNTL R10, R10
	ADDQ    R10, R8
	POPCNTL R11, R11
	ADDQ    R11, R9
	ADDQ    $32, DI
	JMP     loop

stop:
	BSFL AX, CX // the first stop byte's place in the block
	MOVL $1, AX
	SHLQ CX, AX
	DECQ AX     // the bytes below it
	ANDQ AX, R10
	ANDQ AX, R11
	POPCNTL R10, R10
	ADDQ    R10, R8
	POPCNTL R11, R11
	ADDQ    R11, R9
	ADDQ    CX, DI

done:
	VZEROUPPER
	MOVQ DI, n+32(FP)
	MOVQ R8, c0+40(FP)
	MOVQ R9, c1+48(FP)
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET
