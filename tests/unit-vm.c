/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: which guest panic mgbench vm boots again after (mgb_vm_stale_breakpoint, lib/vm/qemu.c). */
#include "config.h"
#include "helpers.h"
#include "vm.h"

#include <stdbool.h>

static void stale_breakpoint(void)
{
	/* the console line a CI boot of Debian's 7.2.13 died on, 1.47 s after qemu started; another
	 * died so during `run cost`, at fill_mg_cmtime's tracepoint */
	const char *int3 = "Oops: int3: 0000 [#1] SMP NOPTI";

	T_CHECK(mgb_vm_stale_breakpoint("tcg", int3), "TCG, int3: boot again (before init or during the run)");
	T_CHECK(!mgb_vm_stale_breakpoint("kvm", int3), "under KVM the CPU patches itself: not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", "Oops: general protection fault, probably for non-canonical"),
		"another oops is the kernel's: not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", ""), "a panic with no oops (init exited): not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", "BUG: kernel NULL pointer dereference"),
		"a NULL dereference: not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", "Oops: int"), "a cut line is no int3: not retried");
}

int main(void)
{
	T_RUN(stale_breakpoint());
	return t_result();
}
