package io.rediskit.autoconfigure.lock;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.leader.LeaderElections;
import io.rediskit.leader.LeadershipEvent;
import io.rediskit.leader.LeadershipGrantedEvent;
import io.rediskit.leader.LeadershipListener;
import io.rediskit.leader.LeadershipRevokedEvent;
import io.rediskit.lock.LockRegistry;
import io.rediskit.support.Background;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configures leader election: a {@link LeaderElections} over the application's {@link LockRegistry}, its ticks
 * on the shared {@link Background},
 * standing for the roles of {@code redis-kit.lock.leader.roles}, telling every {@link LeadershipListener} bean and
 * publishing each grant and revocation as an application event ({@link LeadershipGrantedEvent},
 * {@link LeadershipRevokedEvent}). Off with {@code redis-kit.lock.leader.enabled=false}; the bean backs off when the
 * application defines its own.
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.leader.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class LeaderElectionAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderElections leaderElections(LockRegistry lockRegistry, LockProperties lockProperties,
			ObjectProvider<LeadershipListener> listeners, ApplicationEventPublisher publisher, Environment environment,
			Background background) {
		LeaderProperties properties = lockProperties.getLeader();
		LockSpecs.leader(properties);
		List<LeadershipListener> all = new ArrayList<>(listeners.orderedStream().toList());
		all.add(new EventPublishing(publisher));
		String instance = (properties.getInstanceName() != null) ? properties.getInstanceName()
				: LeaderElections.defaultInstanceName(environment.getProperty("spring.application.name", ""));
		LeaderElections elections = new LeaderElections(lockRegistry, all, instance, properties.getRetryInterval());
		elections.setBackground(background);
		properties.getRoles().forEach(elections::elect);
		return elections;
	}

	/** Publishes each grant and revocation to the application context. */
	private record EventPublishing(ApplicationEventPublisher publisher) implements LeadershipListener {

		@Override
		public void onGranted(LeadershipGrantedEvent event) {
			publish(event);
		}

		@Override
		public void onRevoked(LeadershipRevokedEvent event) {
			publish(event);
		}

		private void publish(LeadershipEvent event) {
			this.publisher.publishEvent(event);
		}

	}

}
