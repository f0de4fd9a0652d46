/* Sandbox stand-in of CANN's libascendcl.so: the runtime calls of acl/acl.h, as CANN's
 * "AscendCL API Reference" documents them. A device is /dev/davinci<id> (sandbox-init makes
 * them, owned by HwHiAiUser, mode 0660): aclrtSetDevice opens it read-write as the driver does,
 * so a user outside the driver's group gets ACL_ERROR_RT_DEV_SETUP_ERROR (507033) like on a real
 * node, and an id outside [0, device count) ACL_ERROR_RT_INVALID_DEVICEID (107001). Device
 * memory is host memory; streams run nothing of their own. */
#define _GNU_SOURCE /* O_CLOEXEC under any -std */
#include "acl/acl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread int current_device = -1;
static int open_devices[64];
static int initialized;

static uint32_t device_count(void)
{
    char path[32];
    uint32_t count = 0;
    while (count < 64) {
        snprintf(path, sizeof path, "/dev/davinci%u", count);
        if (access(path, F_OK) != 0)
            break;
        count++;
    }
    return count;
}

aclError aclInit(const char *configPath)
{
    (void)configPath;
    if (initialized)
        return ACL_ERROR_REPEAT_INITIALIZE;
    initialized = 1;
    return ACL_SUCCESS;
}

aclError aclFinalize(void)
{
    if (!initialized)
        return ACL_ERROR_UNINITIALIZE;
    initialized = 0;
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (count == NULL)
        return ACL_ERROR_INVALID_PARAM;
    *count = device_count();
    return *count == 0 ? ACL_ERROR_RT_DEVICE_NOT_EXIST : ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    char path[32];
    uint32_t count = device_count();
    if (count == 0)
        return ACL_ERROR_RT_DEVICE_NOT_EXIST;
    if (deviceId < 0 || (uint32_t)deviceId >= count)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (open_devices[deviceId] == 0) {
        snprintf(path, sizeof path, "/dev/davinci%d", deviceId);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "[ERROR] RUNTIME: open %s failed: %s (device %d)\n", path, strerror(errno), deviceId);
            return ACL_ERROR_RT_DEV_SETUP_ERROR;
        }
        open_devices[deviceId] = fd;
    }
    current_device = deviceId;
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId)
{
    if (deviceId < 0 || deviceId >= 64 || open_devices[deviceId] == 0)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    close(open_devices[deviceId]);
    open_devices[deviceId] = 0;
    if (current_device == deviceId)
        current_device = -1;
    return ACL_SUCCESS;
}

/* The calling thread's device, -1 without aclrtSetDevice (libhccl checks it). */
int clusterSuiteStandInCurrentDevice(void)
{
    return current_device;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
    if (stream == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (current_device < 0)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = malloc(1);
    return *stream == NULL ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    if (stream == NULL)
        return ACL_ERROR_INVALID_PARAM;
    free(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return stream == NULL ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)policy;
    if (devPtr == NULL || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    if (current_device < 0)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *devPtr = malloc(size);
    return *devPtr == NULL ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr)
{
    free(devPtr);
    return ACL_SUCCESS;
}

aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    if (hostPtr == NULL || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    *hostPtr = malloc(size);
    return *hostPtr == NULL ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr)
{
    free(hostPtr);
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    (void)kind;
    if (dst == NULL || src == NULL || count > destMax)
        return ACL_ERROR_INVALID_PARAM;
    memcpy(dst, src, count);
    return ACL_SUCCESS;
}
