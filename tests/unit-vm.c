/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: which guest panic mgbench vm boots again after (mgb_vm_stale_breakpoint, lib/vm/qemu.c). */
#include "config.h"
#include "helpers.h"
#include "vm.h"

#include <stdbool.h>

static void stale_breakpoint(void)
{
	/* the console line a CI boot of Debian's 7.2.13 died on, 1.47 s after qemu started */
	const char *int3 = "Oops: int3: 0000 [#1] SMP NOPTI";

	T_CHECK(mgb_vm_stale_breakpoint("tcg", false, int3), "TCG, before init, int3: boot again");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", true, int3), "after init a panic is a result, not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("kvm", false, int3), "under KVM the CPU patches itself: not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", false, "Oops: general protection fault, probably for non-canonical"),
		"another oops is the kernel's: not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", false, ""), "a panic with no oops (init exited): not retried");
	T_CHECK(!mgb_vm_stale_breakpoint("tcg", false, "BUG: kernel NULL pointer dereference"),
		"a NULL dereference: not retried");
}

int main(void)
{
	T_RUN(stale_breakpoint());
	return t_result();
}
