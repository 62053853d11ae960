package io.rediskit.autoconfigure.queue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;

import io.rediskit.queue.QueueHandler;

/**
 * One checked {@link io.rediskit.queue.QueueListener @QueueListener} method, as the discovery hands it to the
 * {@link QueueListenerContainerRegistry}: what to consume and how to call it.
 * @param bean the bean
 * @param method the method to invoke, accessible
 * @param queue the resolved queue name
 * @param payloadType the payload type
 * @param wantsMessage whether the method takes the {@code QueueMessage} rather than the payload
 * @param wantsHeaders whether the method takes the headers ({@code Map<String, String>}) as its second parameter
 * @param concurrency the resolved concurrency
 * @param where the method, described for messages
 * @param id the listener's id, the same on every instance: what pauses it on its own
 */
record QueueListenerEndpoint(Object bean, Method method, String queue, Class<?> payloadType, boolean wantsMessage,
		boolean wantsHeaders, int concurrency, String where, String id) {

	/**
	 * @return a handler that invokes the method, rethrowing what it throws; what the method returns is the message's
	 * result, which a flow's parent reads ({@link io.rediskit.queue.QueueMessage#setResult})
	 */
	QueueHandler<Object> handler() {
		return (message) -> {
			try {
				Object first = this.wantsMessage ? message : message.payload();
				Object result = this.wantsHeaders ? this.method.invoke(this.bean, first, message.headers())
						: this.method.invoke(this.bean, first);
				if (result != null && !void.class.equals(this.method.getReturnType())) {
					message.setResult(result);
				}
			}
			catch (InvocationTargetException ex) {
				Throwable cause = ex.getCause();
				if (cause instanceof Exception exception) {
					throw exception;
				}
				throw (Error) cause;
			}
		};
	}

}
