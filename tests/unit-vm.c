/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: which guest panic mgbench vm boots again after (mgb_vm_tcg_artefact, lib/vm/qemu.c). */
#include "config.h"
#include "helpers.h"
#include "vm.h"

#include <stdbool.h>
#include <string.h>

static void stale_breakpoint(void)
{
	/* the console line a CI boot of Debian's 7.2.13 died on, 1.47 s after qemu started; another
	 * died so during `run cost`, at fill_mg_cmtime's tracepoint */
	const char *int3 = "Oops: int3: 0000 [#1] SMP NOPTI", *rip = "RIP: 0010:sched_clock_cpu+0x10/0x1a0";
	const char *a = mgb_vm_tcg_artefact("tcg", int3, rip);

	T_CHECK(a && !strcmp(a, "at a stale breakpoint"), "TCG, int3: boot again (before init or during the run)");
	T_CHECK(!mgb_vm_tcg_artefact("kvm", int3, rip), "under KVM the CPU patches itself: not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", "Oops: general protection fault, probably for non-canonical", rip),
		"another oops is the kernel's: not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", "", ""), "a panic with no oops (init exited): not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", "BUG: kernel NULL pointer dereference", ""),
		"a NULL dereference: not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", "Oops: int", ""), "a cut line is no int3: not retried");
}

static void patching_own_text(void)
{
	/* the lines a CI boot of Debian's 6.12 died on, in the idle task, under make -j3 check */
	const char *gpf = "Oops: general protection fault, maybe for address 0x10: 0000 [#1] PREEMPT SMP NOPTI",
		   *rip = "RIP: 0010:text_poke_early+0x68/0xa0";
	const char *a = mgb_vm_tcg_artefact("tcg", gpf, rip);

	T_CHECK(a && !strcmp(a, "while patching its own text"), "TCG, a fault in text_poke_early: boot again");
	T_CHECK(!mgb_vm_tcg_artefact("kvm", gpf, rip), "under KVM it is the kernel's: not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", gpf, "RIP: 0010:text_poke_early_done+0x8/0x20"),
		"another function whose name begins so: not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", gpf, "RIP: 0010:ext4_fill_super+0x68/0xa0"),
		"the same fault elsewhere: not retried");
	T_CHECK(!mgb_vm_tcg_artefact("tcg", "", rip), "a RIP with no oops: not retried");
}

int main(void)
{
	T_RUN(stale_breakpoint());
	T_RUN(patching_own_text());
	return t_result();
}
