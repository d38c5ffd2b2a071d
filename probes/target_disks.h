/* Shared by the disk-filtered programs and src/trace: how many disks one trace can follow (a
 * device and the devices under it, for stacked devices). */
#ifndef KDRIFT_TARGET_DISKS_H
#define KDRIFT_TARGET_DISKS_H

#define KDRIFT_MAX_TARGET_DISKS 8

#endif
